// LodestoneLocation: GNSS decoding, geodesy and location fusion (issue 6). Placeholder so the target builds before its first file lands; delete it then.
