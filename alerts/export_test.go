package alerts

// UpdateGenerated is the -update flag, for the external test package: it
// rewrites the package's generated files (rules/ from the defaults, and the
// cross-talk matrix in README.md from the replays).
var UpdateGenerated = update
