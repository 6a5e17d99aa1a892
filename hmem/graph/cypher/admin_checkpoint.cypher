// params:
// Benchmarks: flush dirty pages now, so a checkpoint after a bulk load does not run
// during the timed searches that follow it.
CALL db.checkpoint()
