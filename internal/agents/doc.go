// Package agents is the one table of where coding agents read skills, and
// the checks that every driver runs over it: the shadow check, and the
// search for skills folders nested in the workspace. Package install builds
// its public agent table ([install.Agents], `agentskills agents` and
// `list`) from these rows; the drivers (one package per agent) find from
// them the folders whose skills the agent would load beside a run's own. No other package spells out an agent's skill folders.
//
// # The table
//
// [Table] holds one [Row] per agent, sorted by ID. What each column means:
//
//  1. ID is the name users type, as the npm skills tool (1.4.9) spells it;
//     Name is the agent's display name; Program is the command of its CLI
//     when a driver of this module runs it ("claude", "codex"), and
//     prefixes the errors of the shadow check. The rows with a Program
//     are the agents of the drivers, whose descriptors (each driver
//     package's Descriptor) give the same ID, Name and Program: a test of
//     cmd/agentskills, which lists the drivers, checks that they agree.
//  2. Folders are every folder the agent reads skills from, in the
//     agent's order, each a [Folder]: a path relative to a [Base]. A
//     folder of base [Project] is relative to the working folder (the
//     project); [System] folders are absolute; the others are the user's.
//  3. A Base other than [Project] and [System] is a folder of the user's
//     that an environment variable may move ([Base.Override]):
//     CLAUDE_CONFIG_DIR ([ClaudeConfig], default ~/.claude), CODEX_HOME
//     ([CodexHome], default ~/.codex), XDG_CONFIG_HOME ([ConfigHome],
//     default ~/.config); [Home] is the home folder itself.
//  4. Ancestors says that the agent reads its project folders in the
//     working folder and in each folder above it, up to the top of its git
//     repository (a folder that holds .git). Outside a repository Claude
//     Code goes on up to the root of the file system and Codex reads the
//     working folder only; the shadow check goes up to the root for both,
//     which can refuse more, never less.
//  5. Depth is how far below one of its folders the agent finds a
//     SKILL.md: 1 is <folder>/<name>/SKILL.md only, the one layout every
//     agent reads; Codex finds them up to 6 folders down, skipping hidden
//     folders; [AnyDepth] is any depth.
//  6. FollowsLinks says whether a linked skill folder is read (install
//     puts links into agents' folders, so every row says yes); ListedBy
//     says which name the agent lists a skill by: its folder's
//     ([FolderName]) or its front matter's, else its folder's
//     ([FrontMatterName]).
//  7. Install, UserInstall and Formerly are where install puts skills for
//     the agent (the project folder, the user's folder, and the user's
//     folders under the agent's former names, used while only they exist);
//     Detect are the folders whose presence shows that the agent is used.
//     These follow the npm skills tool, except where the package doc of
//     install says otherwise.
//  8. Facts says where a row's folders come from: [Checked] rows
//     (claude-code, codex) are pinned by a test against the real CLI
//     pinned in CI (agents_real_test.go: a skill in each folder is listed
//     by the CLI, one above the repository, deeper than Depth or in a
//     folder not in the row is not); [Recorded] rows come from runs of the
//     CLI recorded in the project's reference notes, not repeated in CI
//     (Gemini CLI, OpenCode); [Documented] ones from the agent's
//     documentation (Cursor, GitHub Copilot, Goose, Windsurf); [NPMTable]
//     ones from the npm skills tool's table only (a comment on a row says
//     where recorded runs saw more). Only Checked rows are known to hold
//     for the pinned version; the System folder of Codex,
//     /etc/codex/skills, is from its documentation (a test does not write
//     to /etc).
//  9. Nested are the project folders the agent also reads in folders
//     below the working folder, as it comes to work there: Claude Code
//     loads pkg/.claude/skills beside a run's skills, one named like a
//     run's skill too, as soon as it reads a file in pkg/ or below
//     (Claude Code 2.1.328); NestedGitignore says it skips a folder
//     git ignores (Claude Code asks `git check-ignore` for the folder,
//     in the working folder). Which rows have them, and how that is
//     known: Claude Code (.claude/skills, ignored folders skipped) and
//     none for Codex and Copilot CLI, pinned by tests against the CLIs
//     (agents_real_test.go: the model reads files below the working
//     folder, and the next request does or does not show their skills);
//     none for Gemini CLI, Qwen Code and OpenCode, read in the pinned
//     versions' code (each lists skills once, from the working folder's
//     and the user's folders); none for Cursor, from its documentation
//     (it lists skills when it starts). The other rows leave it empty:
//     not known. See "Nested skills folders".
//
// # The shadow check
//
// [Row.CheckShadows] is the check a driver runs before it starts the
// agent: a skill that the agent would list from one of the folders it
// reads, under the name of one of the run's skills, with other content,
// fails the run with a *driver.ShadowError naming both folders. The same
// content is no shadow. For a row with Depth 1 that lists skills by
// folder name, the check looks only at <folder>/<name> (a folder of that
// name, followed if a link); otherwise it finds the skills as the agent
// does (Depth, hidden folders skipped, links followed once each, so a
// loop ends) and reads each one's name. [Row.Dirs] lists the folders to
// check for a run in a workspace.
//
// # Nested skills folders
//
// [Row.CheckNested] is the check every driver's kit (internal/launch)
// runs before it starts the agent: a workspace holding, in a folder
// below its top, one of the row's Nested folders with a skill the agent
// lists fails the run with a *driver.NestedSkillsError naming every such
// folder. A run gives the agent exactly its skills, and no option lets
// such a folder in: move or rename it, git-ignore the folder holding it
// where the agent skips ignored ones, or run in another workspace.
// [Row.FindNested] searches as the agent would find them:
//
//  1. The workspace's real path is searched, level by level, every
//     folder below its top, hidden ones too; git's own folder .git is
//     not.
//  2. In each folder, each Nested folder is looked at (a link followed)
//     and holds a skill when the agent would list one from it (Depth,
//     ListedBy, as for the shadow check). An empty one is no refusal.
//  3. A link to a folder is looked at (its own Nested folders). When
//     its target is in the workspace it is also walked, as a folder at
//     the link's path, as the agent reads files through it: the target
//     walked where it is is another path, which git may ignore where
//     the link's is not. A link to a folder on its own path (the real
//     paths of the folders the path passes through, links and all: a
//     link to the folder holding it, to the workspace, two links to each
//     other) is a loop and not walked, so a loop ends; every entry read
//     and every level through a link counts against rule 5's bounds. A
//     link out of the workspace is not walked: the agent loads no
//     Nested folder below it. A Nested folder that is, through a link,
//     the same folder of the workspace or of one above it is not
//     nested: the shadow check covers it. A link in a folder git
//     ignores is not reached (rule 4), though the agent loads the
//     folders below it when it reads a file there.
//  4. For a row with NestedGitignore, a folder git ignores is neither
//     walked nor looked at: git is asked, as the agent asks it (`git
//     check-ignore`, with the agent's environment, in the workspace,
//     absolute paths, so no name is read as pathspec magic; with
//     core.fsmonitor off, so a repository's configuration runs nothing).
//     Where git cannot answer (git missing, no repository, a folder in
//     a repository of its own below the workspace's, a path through a
//     link, git failing), nothing is ignored: the search finds more,
//     never less. Git answers for a link's own path: a link git ignores
//     is not looked at, but walked (rule 3), as git answers nothing for
//     the paths below it.
//  5. The search reads at most [MaxNestedEntries] folder entries and
//     goes [MaxNestedDepth] folders down; past either it fails with an
//     error wrapping [ErrNestedLimit] saying what to do, and the run is
//     refused. Ignored folders do not count.
//  6. An unreadable folder holds nothing: the agent cannot read a file
//     there either.
//  7. A nested skill listed under the name of one of the run's skills
//     ([Walk].Ours), with the same content, is that skill: it adds
//     nothing the run did not choose, as the shadow check passes the same
//     content. A folder holding only such skills is not reported; one
//     other skill, or another version of one of the run's, is.
//
// On macOS the table and the check hold as on Linux. On Windows the
// folders are the same relative to the home folder; a System folder is
// taken on the current drive (\etc\codex\skills), and a link is followed
// as os.Stat follows it (a junction too).
package agents
