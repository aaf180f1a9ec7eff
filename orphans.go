package adaptor

import "github.com/agentadaptor/agentadaptor/internal/process"

// AdoptOrphans makes this process a child subreaper on Linux
// (PR_SET_CHILD_SUBREAPER), so that every process a run's agent leaves
// behind comes back to it and is stopped when the run ends, even one that
// left the agent's process group and dropped the environment tag the
// drivers otherwise find it by. Call it once, early in main; the attribute
// is process-wide and lasts for the life of the process.
//
// A program that calls it accepts one condition: while a run is going, an
// orphan of one of its other children (a daemon that child started), which
// would otherwise go to init, is taken for the run's and stopped with it.
// Children the program starts with os/exec are never touched. The
// agentskills command calls it. On other systems it does nothing and
// returns nil: there, processes that leave the agent's group are not
// tracked.
func AdoptOrphans() error { return process.AdoptOrphans() }
