// LodestoneMotion: Altitude, activity and pedometer (issue 5). Placeholder so the target builds before its first file lands; delete it then.
