// Package process runs a program the way an agent-CLI driver needs: it
// writes a prompt to the program's standard input, hands each line of its
// standard output to the caller, keeps the end of its standard error, and
// leaves no process behind.
//
// [Run] is the single entry point. It is safe for concurrent use: runs share
// nothing.
//
// # Rules
//
// On Unix systems:
//
//  1. The program runs in a process group of its own (Setpgid), whose id is
//     the program's pid. A Ctrl-C typed at the terminal therefore reaches
//     the caller only; the caller passes it on by cancelling the context.
//  2. When the context is done, or the line callback returns an error, the
//     whole group gets SIGINT; if the program has not exited
//     [Command.Grace] later, the whole group gets SIGKILL.
//  3. However the program ends, once it has exited the whole group gets
//     SIGKILL before Run returns, so no process of the group survives Run:
//     not even a background child the program left running after a normal
//     exit. A child that holds standard output open cannot make Run hang,
//     since it dies with the group. On Linux the program is waited for
//     without being reaped (waitid with WNOWAIT) until the group has been
//     killed, so its pid, which is the group id, cannot be reused in
//     between; on other Unix systems the program is reaped first and the
//     group killed just after (best effort).
//  4. Standard output is read in lines through a buffer bounded by
//     [Command.MaxLine]. A longer line is skipped, its length is reported
//     to [Command.Overlong], and reading goes on with the next line.
//  5. Only the last [Command.StderrTail] bytes of standard error are kept in
//     memory, however much the program writes.
//  6. Run returns only after the program has been reaped and every
//     goroutine it started has finished. The line callback is never called
//     after Run returns, nor concurrently with itself.
//  7. [Command.Stdin] is written to standard input, which is then closed. A
//     program that exits without reading it all does not block Run.
//  8. A process that left the group (setsid, setpgid; Claude Code runs each
//     shell command of its Bash tool in a group of its own) is not reached
//     by the group's signals. If it holds standard output or standard
//     error open, Run stops reading that pipe once it has spent about
//     [Command.Grace] in all waiting for data after the group died. Output
//     already in the pipe is read at once, so a slow line callback loses
//     nothing; what that process writes later may be lost.
//  9. On Linux such processes die too: the program's environment gets a
//     variable AGENTADAPTOR_PROCESS_TAG with a random value, which every
//     descendant inherits, and after the group is killed Run scans /proc
//     and kills every process of the user that carries it, until a scan
//     finds none. Each is signalled through a pidfd opened after its
//     environment was read and checked again after, so a reused pid is
//     never signalled. A descendant that clears its environment, or runs
//     as another user, escapes this net; rule 11 is the one that does not
//     trust the environment. On other systems rule 8 is the last word.
//  10. On Linux the program, and every process still in its group, dies
//     with the process that runs it, even when that process is killed by
//     SIGKILL (the OOM killer, timeout -s KILL, a supervisor). The program
//     is started with a parent-death signal (Pdeathsig) of SIGKILL. The
//     kernel sends it when the thread that forked the program ends, not
//     the process, and the Go runtime ends a thread whose goroutine exits
//     locked to it; so the program is started from a goroutine locked to
//     its thread, which waits for the program's exit on that thread and
//     unlocks it only then. That signal is not inherited, so for the rest
//     of the group (Codex's Node.js launcher, under Node before 22.15,
//     runs the native program as its child) a guard, /bin/sh, joins the
//     group: it reads a pipe whose only writer is this process, and at its
//     end, however this process died, kills its own group, which cannot
//     have been reused while the guard is in it. The guard ignores
//     SIGINT, SIGTERM and SIGHUP, dies with the group (rules 2 and 3), and
//     is reaped by Run. Without /bin/sh there is no guard. Descendants
//     that left the group (a shell command of Claude Code's Bash tool) are
//     not bound: after such a kill no process is left to apply rules 9
//     and 11 to them. A set-user-ID program loses the signal at exec.
//  11. On Linux, when this process is a child subreaper
//     (PR_SET_CHILD_SUBREAPER; [AdoptOrphans] makes it one, Run never
//     does: the attribute is process-wide), every descendant of the
//     program whose parent dies is reparented to this process, whatever
//     its environment, group or session. After rule 9, Run stops and
//     reaps each child of this process that is an orphan of the run by
//     the test below, until it finds none (a killed orphan's children are reparented
//     in turn); then none of the run's descendants is left, tag or no tag.
//     A child is taken for one when it is not the program, this process
//     holds no pidfd for it (Go's os/exec holds one for every child it
//     starts, from the fork until it has reaped it, so no child the host
//     started, and no other run's program, is ever taken), and either it
//     carries the run's tag, or it carries no tag and started in a later
//     clock tick (1/100 s in /proc) than the program and in an earlier one
//     than every other run's program still running. One that may belong
//     to another run of this process is thus left to that run: it lives
//     until the last of the runs running when it started ends.
//     Each is signalled and reaped through a pidfd opened after it was
//     found, and checked again after (parent and start time), so a reused
//     pid is never signalled; only those pids are waited for, never any
//     child (which would steal the children of os/exec). An orphan that
//     exited on its own is our zombie until the run ends, and is reaped
//     then. A program that makes itself a subreaper accepts one
//     condition: during a run, an untagged child it holds no pidfd for
//     and that started after the run's program is taken for the run's.
//     So its other children must not leave orphans behind during a run (a
//     daemon a child starts), nor may it start children without a pidfd
//     (syscall.ForkExec, C code) then. The agentskills command is a
//     subreaper from its start. Without a subreaper, or without pidfds
//     (Linux before 5.4), rule 9 is the only net.
//  12. When [Command.StderrLine] is set, each line of standard error is
//     passed to it as it arrives, without its ending ("\n" or "\r\n"),
//     empty lines skipped, a final line without a newline included. A
//     line longer than [MaxStderrLine] bytes is cut to that length (a
//     character the cut splits is dropped) and the rest of it dropped;
//     invalid UTF-8 is replaced by U+FFFD. It is called from one goroutine,
//     never concurrently with itself, never after Run has stopped the
//     program (cancellation, a line error) nor after Run returns; the
//     tail of rule 5 is kept all the same. If it panics, the program is
//     stopped and Run panics with the same value, as for the line
//     callback. It is called on the goroutine that reads standard error,
//     so a slow StderrLine slows the program's writes, not the reading
//     of its standard output.
//
// # Output
//
// Lines of standard output are delivered without their ending ("\n" or
// "\r\n"); empty lines are skipped; a final line without a newline is
// delivered too. Lines are bytes, not text: binary or invalid UTF-8 output
// is passed on as it is. Once Run has stopped the program (cancellation or
// a line error), the line callback and [Command.Overlong] are no longer
// called, and the rest of standard output is read and discarded so the
// program never blocks on a full pipe.
//
// The program's standard input is a pipe and it is not in the terminal's
// foreground group: it must not use the terminal. It inherits the caller's
// ignored signals: when the caller runs with SIGINT ignored (as a shell
// starts background jobs), a program that does not handle SIGINT itself
// ignores it too, and only SIGKILL, after the grace period, ends it.
//
// # macOS and other Unix systems
//
// Rules 1 to 8 and 12 hold. There is no parent-death signal and no child
// subreaper: a program outlives a process killed by SIGKILL (rule 10),
// and a descendant that leaves the program's group outlives Run (rules 9
// and 11); rule 8 is the last word.
//
// # Windows
//
// On Windows (and other systems without Unix signals) Run falls back to
// killing the program with [os.Process.Kill], at once, on cancellation; there
// are no process groups, so the program's children are not tracked, and a
// child holding its output open can keep Run waiting. Nothing binds the
// program to this process (rule 10) and orphans are not adopted (rule 11).
// Rule 12 holds there too. This fallback builds but is not tested.
package process
