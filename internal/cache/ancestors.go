package cache

// CheckAncestors refuses the absolute folder p when a user other than the
// current one (or root) could replace it or any folder above it, as rule
// 5 refuses a cache root: every folder on the way, p included, must belong
// to the current user or root and be writable by no one else unless
// sticky, and every link on the way must belong to the current user or
// root. Where ownership is not checked (see [CheckOwner]) it accepts
// every folder.
func CheckAncestors(p string) error { return checkAncestors(p) }
