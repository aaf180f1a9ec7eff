// Package filelock takes advisory locks on open files, exclusive or
// shared, so that processes (and open files within one process) that
// share a lock file take turns.
//
// Rules:
//
//  1. A lock belongs to the open file it was taken through: on Unix the
//     open file description (flock), on Windows the handle (LockFileEx on
//     the file's first byte, which need not exist). Another open of the
//     same file, in this process or another, does not share it.
//  2. There is no Unlock: closing the file releases its lock, and so does
//     the end of the process that holds it.
//  3. [TryLock] never waits: it fails with [ErrLocked] when another open
//     file holds the lock. [Lock] waits for it.
//  4. [Lock] first tries once, so a free lock is taken even when ctx is
//     already done. Then, when ctx can be cancelled (its Done channel is
//     not nil), it tries again every 50 ms until it has the lock
//     or ctx is done, returning ctx.Err() in that case; when it cannot,
//     it waits in the kernel.
//  5. Interrupted system calls (EINTR) are retried.
//  6. Locks are advisory: they keep out only those who take them. On
//     Windows the locked byte also cannot be read or written through
//     other handles, so a lock file should hold nothing else that others
//     read.
//  7. On platforms that are neither Unix nor Windows, no lock is taken:
//     TryLock and Lock succeed at once, and callers that need exclusion
//     there must get it some other way.
package filelock
