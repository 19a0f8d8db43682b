"""Shared by the accuracy scripts: where things are, and running `lodestone replay`."""
import os, subprocess, sys, tempfile
import pandas as pd

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.abspath(os.path.join(HERE, '..', '..'))
DATASETS = os.path.abspath(os.path.join(ROOT, '..', 'shared', 'datasets'))
RESULTS = os.path.join(HERE, 'results')


def lodestone():
    """The release build of the CLI (`swift build -c release --product lodestone` at the repository root)."""
    path = os.path.join(ROOT, '.build', 'release', 'lodestone')
    if not os.path.exists(path):
        sys.exit(f'{path} is missing: run `swift build -c release --product lodestone` in {ROOT} first')
    return path


def replay(trace, *options):
    """Runs `lodestone replay` over `trace` and returns its output as a DataFrame (activity columns as text)."""
    with tempfile.NamedTemporaryFile(suffix='.csv', delete=False) as f:
        out = f.name
    try:
        r = subprocess.run([lodestone(), 'replay', '--input', trace, '--output', out, *options],
                           capture_output=True, text=True)
        if r.returncode != 0:
            raise RuntimeError(f'lodestone replay {trace}: {r.stderr.strip()}')
        return pd.read_csv(out, dtype={'activity': str, 'activity_confidence': str})
    finally:
        os.unlink(out)


def record(scenario, seed, path, noise='consumer'):
    """A simulated trace of a catalog scenario from `motion-harness record` (see its header)."""
    harness = os.path.join(HERE, '.build', 'release', 'motion-harness')
    if not os.path.exists(harness):
        sys.exit(f'{harness} is missing: run `swift build -c release` in benchmarks/accuracy first')
    subprocess.run([harness, 'record', '--scenario', scenario, '--noise', noise, '--seed', str(seed), '--output', path],
                   check=True)
    return path


def write_result(name, text):
    """Writes results/<name> atomically."""
    os.makedirs(RESULTS, exist_ok=True)
    path = os.path.join(RESULTS, name)
    with open(path + '.tmp', 'w') as f:
        f.write(text)
    os.replace(path + '.tmp', path)
    print('wrote', os.path.relpath(path, ROOT))
