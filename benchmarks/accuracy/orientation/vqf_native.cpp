// The reference point for Lodestone's speed: VQF's own C++ core (Laidig & Seel 2023), built at harness time from
// the `vqf` sdist on PyPI (run.py fetches it; it is never committed), driven on the same BROAD file as Lodestone.
//
//   vqf_native bench  TRIAL.csv.gz           ns per 9D update: every sample of the trial through
//                                            VQF::update(gyr, acc, mag), repeated until ~2 s have passed;
//                                            prints "ns_per_update <median of the repeats>"
//   vqf_native replay TRIAL.csv.gz OUT.csv   end to end like `lodestone replay`: gunzip and parse the CSV, run
//                                            VQF, write t, quaternion, roll/pitch/heading, bias, rest and
//                                            disturbance per row; prints "rows <n> seconds <s>"
//
// Built with: c++ -O2 -std=c++17 -I<vqf/cpp> vqf_native.cpp <vqf/cpp>/vqf.cpp -lz
#include "vqf.hpp"

#include <zlib.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

namespace {

struct Row {
    double t, acc[3], gyr[3], mag[3];
};

std::string readGzip(const char* path) {
    gzFile f = gzopen(path, "rb");
    if (!f) { std::fprintf(stderr, "vqf_native: cannot open %s\n", path); std::exit(1); }
    std::string text;
    char buffer[1 << 16];
    int n;
    while ((n = gzread(f, buffer, sizeof buffer)) > 0) text.append(buffer, static_cast<size_t>(n));
    gzclose(f);
    return text;
}

// BROAD's header is fixed: t_s,acc_x..z,gyr_x..z,mag_x..z,gt_qw..qz,valid.
std::vector<Row> parse(const std::string& text) {
    std::vector<Row> rows;
    const char* p = text.c_str();
    const char* end = p + text.size();
    p = static_cast<const char*>(std::memchr(p, '\n', static_cast<size_t>(end - p)));
    if (!p) return rows;
    ++p;
    while (p < end) {
        Row r;
        char* q;
        double v[10];
        for (double& x : v) {
            x = std::strtod(p, &q);
            p = q + 1;
        }
        r.t = v[0];
        for (int i = 0; i < 3; ++i) { r.acc[i] = v[1 + i]; r.gyr[i] = v[4 + i]; r.mag[i] = v[7 + i]; }
        rows.push_back(r);
        const char* nl = static_cast<const char*>(std::memchr(p, '\n', static_cast<size_t>(end - p)));
        if (!nl) break;
        p = nl + 1;
    }
    return rows;
}

double seconds(std::chrono::steady_clock::duration d) { return std::chrono::duration<double>(d).count(); }

}  // namespace

int main(int argc, char** argv) {
    if (argc < 3) { std::fprintf(stderr, "usage: vqf_native bench|replay TRIAL.csv.gz [OUT.csv]\n"); return 2; }
    const std::string mode = argv[1];
    const double ts = 0.0035;
    if (mode == "bench") {
        std::vector<Row> rows = parse(readGzip(argv[2]));
        std::vector<double> perUpdateNs;
        double total = 0;
        double sink = 0;
        while (total < 2.0 || perUpdateNs.size() < 5) {
            VQF vqf(ts);
            auto start = std::chrono::steady_clock::now();
            for (Row& r : rows) vqf.update(r.gyr, r.acc, r.mag);
            double s = seconds(std::chrono::steady_clock::now() - start);
            vqf_real_t q[4];
            vqf.getQuat9D(q);
            sink += q[0];
            total += s;
            perUpdateNs.push_back(s * 1e9 / static_cast<double>(rows.size()));
        }
        std::sort(perUpdateNs.begin(), perUpdateNs.end());
        std::printf("ns_per_update %.1f samples %zu repeats %zu check %.3f\n", perUpdateNs[perUpdateNs.size() / 2], rows.size(),
                    perUpdateNs.size(), sink / static_cast<double>(perUpdateNs.size()));
        return 0;
    }
    if (mode == "replay" && argc == 4) {
        auto start = std::chrono::steady_clock::now();
        std::vector<Row> rows = parse(readGzip(argv[2]));
        FILE* out = std::fopen(argv[3], "w");
        if (!out) { std::fprintf(stderr, "vqf_native: cannot write %s\n", argv[3]); return 1; }
        std::fprintf(out, "t_s,qw,qx,qy,qz,roll_deg,pitch_deg,heading_deg,gyro_bias_x_rads,gyro_bias_y_rads,gyro_bias_z_rads,at_rest,mag_disturbed\n");
        VQF vqf(ts);
        const double degrees = 180.0 / M_PI;
        for (Row& r : rows) {
            vqf.update(r.gyr, r.acc, r.mag);
            vqf_real_t q[4], b[3];
            vqf.getQuat9D(q);
            vqf.getBiasEstimate(b);
            // Same conventions as Lodestone: heading of the board's +y axis clockwise from north, pitch of +y.
            double yx = 2 * (q[1] * q[2] - q[0] * q[3]), yy = 1 - 2 * (q[1] * q[1] + q[3] * q[3]), yz = 2 * (q[2] * q[3] + q[0] * q[1]);
            double xz = 2 * (q[1] * q[3] - q[0] * q[2]), zz = 1 - 2 * (q[1] * q[1] + q[2] * q[2]);
            double heading = std::atan2(yx, yy) * degrees;
            if (heading < 0) heading += 360;
            std::fprintf(out, "%.4f,%.6f,%.6f,%.6f,%.6f,%.2f,%.2f,%.2f,%.7f,%.7f,%.7f,%d,%d\n", r.t, q[0], q[1], q[2], q[3],
                         std::atan2(-xz, zz) * degrees, std::asin(std::max(-1.0, std::min(1.0, yz))) * degrees, heading,
                         b[0], b[1], b[2], vqf.getRestDetected() ? 1 : 0, vqf.getMagDistDetected() ? 1 : 0);
        }
        std::fclose(out);
        std::printf("rows %zu seconds %.4f\n", rows.size(), seconds(std::chrono::steady_clock::now() - start));
        return 0;
    }
    std::fprintf(stderr, "usage: vqf_native bench|replay TRIAL.csv.gz [OUT.csv]\n");
    return 2;
}
