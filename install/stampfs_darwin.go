package install

import "golang.org/x/sys/unix"

// stampableFS reports whether the folder dir lies on a file system whose
// change times the stat record may trust (rule 16): APFS or HFS+, local
// ones the kernel keeps them on, which no user can set back. Network and
// FUSE file systems (SMB, NFS, macFUSE), whose stats are the server's,
// and any other, are read every time.
func stampableFS(dir string) bool {
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
