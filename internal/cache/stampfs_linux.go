package cache

import "golang.org/x/sys/unix"

// zfsSuperMagic is the f_type of ZFS on Linux, which x/sys/unix does not
// name.
const zfsSuperMagic = 0x2fc12fc1

// StampableFS reports whether the folder dir lies on a file system whose
// change times a stamp may stand for (package install's stat record,
// package trust's index of kept reports): a local one the kernel keeps
// them on, which no user can set back. ext2/3/4, XFS, Btrfs, F2FS, ZFS
// and tmpfs; and overlayfs, the root of most containers, whose stats are
// its layers' (a write copies a file up to the upper layer, setting its
// change time, and the lower layers do not change under a mounted
// overlay). Network and FUSE file systems (NFS, CIFS, sshfs, 9p,
// virtiofs), whose stats are the server's, and any other, are read every
// time.
func StampableFS(dir string) bool {
	var st unix.Statfs_t
	if unix.Statfs(dir, &st) != nil {
		return false
	}
	switch uint32(st.Type) {
	case unix.EXT4_SUPER_MAGIC, unix.XFS_SUPER_MAGIC, unix.BTRFS_SUPER_MAGIC, unix.F2FS_SUPER_MAGIC,
		unix.TMPFS_MAGIC, unix.OVERLAYFS_SUPER_MAGIC, zfsSuperMagic:
		return true
	}
	return false
}
