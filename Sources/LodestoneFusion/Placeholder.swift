// LodestoneFusion: Orientation and heading (issue 4). Placeholder so the target builds before its first file lands; delete it then.
