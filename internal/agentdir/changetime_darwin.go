package agentdir

import "syscall"

// ctime is st's change time.
func ctime(st *syscall.Stat_t) syscall.Timespec { return st.Ctimespec }
