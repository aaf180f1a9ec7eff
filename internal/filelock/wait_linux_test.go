package filelock

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"runtime"
	"strconv"
	"testing"
	"time"

	"golang.org/x/sys/unix"
)

// lockInKernel calls Lock(context.Background(), f) on a goroutine and
// returns, with the channel its result comes on, once that goroutine
// waits in flock (its thread's /proc entry names the call) or has
// returned. The wait is a stable state, so looking for it cannot miss it.
func lockInKernel(t *testing.T, f *os.File) <-chan error {
	t.Helper()
	got := make(chan error, 1)
	tids := make(chan int, 1)
	go func() {
		runtime.LockOSThread() // the thread ends with the goroutine
		tids <- unix.Gettid()
		got <- Lock(context.Background(), f)
	}()
	syscall := syscallFile(<-tids)
	want := []byte(strconv.Itoa(unix.SYS_FLOCK) + " ")
	for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(time.Millisecond) {
		b, err := os.ReadFile(syscall)
		if err != nil {
			t.Fatalf("cannot see where Lock waits: %v", err)
		}
		if bytes.HasPrefix(b, want) || len(got) > 0 {
			return got
		}
		if time.Now().After(deadline) {
			t.Fatalf("Lock(%s) never waited in flock", f.Name())
		}
	}
}

// syscallFile is where /proc says which system call thread tid is in.
func syscallFile(tid int) string { return fmt.Sprintf("/proc/self/task/%d/syscall", tid) }
