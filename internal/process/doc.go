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
//     as another user, escapes; on other systems rule 8 is the last word.
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
// # Windows
//
// On Windows (and other systems without Unix signals) Run falls back to
// killing the program with [os.Process.Kill], at once, on cancellation; there
// are no process groups, so the program's children are not tracked, and a
// child holding its output open can keep Run waiting. This fallback builds
// but is not tested.
package process
