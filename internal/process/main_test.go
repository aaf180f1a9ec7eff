package process

import (
	"bufio"
	"encoding/hex"
	"fmt"
	"io"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
)

// childEnv, set to "1", makes the test binary act as a helper program whose
// arguments are actions run in order.
const childEnv = "PROCESS_TEST_CHILD"

func TestMain(m *testing.M) {
	if os.Getenv(childEnv) == "1" {
		os.Exit(runChild(os.Args[1:]))
	}
	os.Exit(m.Run())
}

// child returns a Command that runs the test binary as a helper program
// doing actions:
//
//	out:TEXT       write TEXT to standard output, in one write
//	hex:HEX        write the bytes HEX encodes to standard output
//	long:N         write N bytes 'x' to standard output, without a newline
//	lines:N        write N lines "line I" to standard output
//	spam           write a line every 10ms, for ever
//	err:TEXT       write TEXT to standard error
//	errn:N         write N bytes of [stderrPattern] to standard error
//	cat            copy standard input to standard output
//	sleep:D        sleep for the duration D
//	exit:N         exit with status N
//	touch:FILE     create FILE
//	await:FILE     wait until FILE exists
//	ignoreint      ignore SIGINT
//	trapint:N      on SIGINT, write "got interrupt\n" to standard error and exit N
//	trapwait:N     the same, after waiting for the spawned processes
//	spawn:FILE ... --   start a helper doing the actions up to "--", which
//	               shares standard output and error, and write its pid to FILE
//	escape:FILE ... --  the same, in a new session (Unix)
//	detach:FILE ... --  start a helper, without the run's tag in its
//	               environment, that starts one doing the actions in a new
//	               session with its pid written to FILE, and exits: the
//	               second is orphaned, untagged (Unix)
//	tick           sleep 20ms, so that what it starts next starts in a
//	               later clock tick than itself (/proc counts start times
//	               in ticks of 1/100 s)
//	pgid           write "PID PGID" to standard output (Unix)
//	raise:SIG      send itself SIGKILL or SIGTERM (Unix)
func child(t testing.TB, actions ...string) Command {
	t.Helper()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	// Under the race detector a program sleeps 1s before a clean exit
	// unless told not to.
	gorace := strings.TrimSpace(os.Getenv("GORACE") + " atexit_sleep_ms=0")
	return Command{
		Path: exe,
		Args: actions,
		Env:  append(os.Environ(), childEnv+"=1", "GORACE="+gorace),
	}
}

// stderrPattern returns byte i of what errn writes.
func stderrPattern(i int) byte { return 'a' + byte(i%26) }

func runChild(args []string) int {
	var (
		mu      sync.Mutex
		spawned []*exec.Cmd
	)
	trap := func(code int, wait bool) {
		sig := make(chan os.Signal, 1)
		signal.Notify(sig, os.Interrupt)
		go func() {
			<-sig
			os.Stderr.WriteString("got interrupt\n")
			if wait {
				mu.Lock()
				for _, c := range spawned {
					c.Wait()
				}
				mu.Unlock()
			}
			os.Exit(code)
		}()
	}
	for i := 0; i < len(args); i++ {
		name, arg, _ := strings.Cut(args[i], ":")
		n, _ := strconv.Atoi(arg)
		switch name {
		case "out":
			os.Stdout.WriteString(arg)
		case "hex":
			b, err := hex.DecodeString(arg)
			if err != nil {
				panic(err)
			}
			os.Stdout.Write(b)
		case "long":
			os.Stdout.WriteString(strings.Repeat("x", n))
		case "lines":
			w := bufio.NewWriter(os.Stdout)
			for j := range n {
				fmt.Fprintf(w, "line %d\n", j)
			}
			w.Flush()
		case "spam":
			for {
				os.Stdout.WriteString("spam\n")
				time.Sleep(10 * time.Millisecond)
			}
		case "err":
			os.Stderr.WriteString(arg)
		case "errn":
			b := make([]byte, 64<<10)
			for done := 0; done < n; {
				m := min(len(b), n-done)
				for j := range m {
					b[j] = stderrPattern(done + j)
				}
				os.Stderr.Write(b[:m])
				done += m
			}
		case "cat":
			io.Copy(os.Stdout, os.Stdin)
		case "sleep":
			d, err := time.ParseDuration(arg)
			if err != nil {
				panic(err)
			}
			time.Sleep(d)
		case "tick":
			time.Sleep(20 * time.Millisecond)
		case "exit":
			return n
		case "touch":
			if err := os.WriteFile(arg, nil, 0o666); err != nil {
				panic(err)
			}
		case "await":
			for {
				if _, err := os.Stat(arg); err == nil {
					break
				}
				time.Sleep(5 * time.Millisecond)
			}
		case "ignoreint":
			signal.Ignore(os.Interrupt)
		case "trapint", "trapwait":
			trap(n, name == "trapwait")
		case "spawn", "escape":
			end := i + 1
			for end < len(args) && args[end] != "--" {
				end++
			}
			exe, err := os.Executable()
			if err != nil {
				panic(err)
			}
			c := exec.Command(exe, args[i+1:end]...)
			c.Stdout, c.Stderr = os.Stdout, os.Stderr
			c.SysProcAttr = spawnAttr(name == "escape")
			if err := c.Start(); err != nil {
				panic(err)
			}
			mu.Lock()
			spawned = append(spawned, c)
			mu.Unlock()
			writePid(arg, c.Process.Pid)
			i = end
		case "detach":
			end := i + 1
			for end < len(args) && args[end] != "--" {
				end++
			}
			exe, err := os.Executable()
			if err != nil {
				panic(err)
			}
			c := exec.Command(exe, append([]string{"escape:" + arg}, args[i+1:end+min(1, len(args)-end)]...)...)
			c.Env = slices.DeleteFunc(os.Environ(), func(kv string) bool { return strings.HasPrefix(kv, tagVar+"=") })
			if err := c.Run(); err != nil {
				panic(err)
			}
			i = end
		default:
			if !unixAction(name, arg) {
				panic("unknown action " + args[i])
			}
		}
	}
	return 0
}

// writePid writes pid to file, whole or not at all.
func writePid(file string, pid int) {
	tmp := filepath.Join(filepath.Dir(file), ".tmp-"+filepath.Base(file))
	if err := os.WriteFile(tmp, []byte(strconv.Itoa(pid)), 0o666); err != nil {
		panic(err)
	}
	if err := os.Rename(tmp, file); err != nil {
		panic(err)
	}
}

// readPid reads a file writePid wrote.
func readPid(t testing.TB, file string) int {
	t.Helper()
	b, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	pid, err := strconv.Atoi(strings.TrimSpace(string(b)))
	if err != nil {
		t.Fatal(err)
	}
	return pid
}
