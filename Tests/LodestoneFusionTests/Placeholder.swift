// LodestoneFusionTests (issue 4). Placeholder so the target builds before its first test lands; delete it then.
