package cache

import "golang.org/x/sys/unix"

// StampableFS reports whether the folder dir lies on a file system whose
// change times a stamp may stand for (package install's stat record,
// package trust's index of kept reports): APFS or HFS+, local ones the
// kernel keeps them on, which no user can set back. Network and FUSE file
// systems (SMB, NFS, macFUSE), whose stats are the server's, and any
// other, are read every time.
func StampableFS(dir string) bool {
	var st unix.Statfs_t
	if unix.Statfs(dir, &st) != nil {
		return false
	}
	switch unix.ByteSliceToString(st.Fstypename[:]) {
	case "apfs", "hfs":
		return true
	}
	return false
}
