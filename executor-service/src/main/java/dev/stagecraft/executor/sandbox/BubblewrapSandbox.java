package dev.stagecraft.executor.sandbox;

import dev.stagecraft.executor.step.LocalCommands;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Runs each action's {@code local-exec} commands in a sandbox of their own (docs/adr/0060): Linux
 * namespaces through bubblewrap, as an unprivileged uid no other sandbox of the host runs as, in a
 * private file system, with the host's system directories read-only, none of the executor's
 * environment, files or processes visible, and the action's memory, processes, CPU share and disk
 * space limited.
 *
 * <p>Per action ({@link #open}): a uid is leased ({@link UidPool}); a memory-backed file system of
 * {@code diskBytes} is mounted at {@code <directory>/sessions/<uid>} holding the action's working
 * directory ({@code /work} inside), home ({@code /home/stagecraft}), {@code /tmp} and {@code
 * /dev/shm}, all owned by that uid; control groups of that uid are created ({@link ControlGroups}).
 * At the action's first command ({@link SandboxSession#start}): {@code /bin/sh} (this class's own
 * fixed script) enters the control groups and sets the rlimits, {@code setpriv} drops to the uid,
 * and {@code bwrap} builds the namespaces and starts the action's {@link StepServer}, which runs
 * each command of the action in a subshell (the environment and directory of each its own). Closing
 * the session kills what is left, removes the groups, unmounts the file system and releases the
 * uid.
 *
 * <p>Needs root (to drop each sandbox to its own uid, mount and manage control groups), bubblewrap
 * and util-linux's {@code setpriv}, and unprivileged user namespaces. {@link #create} checks it all
 * by running one command in a sandbox and says what is missing.
 *
 * <p>Concurrency: thread-safe; each session is used by its action's thread.
 */
public final class BubblewrapSandbox implements LocalCommands {
  private static final Logger LOG = LoggerFactory.getLogger(BubblewrapSandbox.class);
  static final Path BWRAP = Path.of("/usr/bin/bwrap");
  static final Path SETPRIV = Path.of("/usr/bin/setpriv");
  static final Path PRLIMIT = Path.of("/usr/bin/prlimit");
  static final Path MOUNT = Path.of("/bin/mount");
  static final Path MKFIFO = Path.of("/usr/bin/mkfifo");
  static final Path UMOUNT = Path.of("/bin/umount");

  private final SandboxSettings settings;
  private final UidPool uids;
  private final ControlGroups cgroups;
  private final boolean privateMounts;

  private BubblewrapSandbox(
      SandboxSettings settings, ControlGroups cgroups, boolean privateMounts) {
    this.settings = settings;
    this.uids =
        new UidPool(settings.directory().resolve("uids"), settings.firstUid(), settings.uidCount());
    this.cgroups = cgroups;
    this.privateMounts = privateMounts;
  }

  /**
   * A sandbox with these settings, after checking that one can be set up here by running {@code
   * /bin/true} in one.
   *
   * @throws Unavailable saying what is missing (bubblewrap, setpriv, root, user namespaces) and how
   *     to get it or opt out
   */
  public static BubblewrapSandbox create(SandboxSettings settings) throws Unavailable {
    for (Path tool : List.of(BWRAP, SETPRIV, PRLIMIT)) {
      if (!Files.isExecutable(tool)) {
        throw new Unavailable(
            tool
                + " is missing: install bubblewrap and util-linux (apt-get install bubblewrap"
                + " util-linux)"
                + OPT_OUT);
      }
    }
    if (!runningAsRoot()) {
      throw new Unavailable(
          "the executor does not run as root, so it cannot start sandboxes as uids of their own"
              + " (STAGECRAFT_EXECUTOR_SANDBOX_UIDS)"
              + OPT_OUT);
    }
    try {
      Files.createDirectories(settings.directory().resolve("sessions"));
      requireSearchable(settings.directory().resolve("sessions"));
    } catch (IOException e) {
      throw new Unavailable("cannot create " + settings.directory() + ": " + e.getMessage());
    }
    boolean mounts = canMount(settings.directory());
    BubblewrapSandbox sandbox = new BubblewrapSandbox(settings, ControlGroups.detect(), mounts);
    sandbox.selfTest();
    LOG.info(
        "local-exec sandbox on: bubblewrap, uids {}-{}, limits {}",
        settings.firstUid(),
        settings.firstUid() + settings.uidCount() - 1,
        sandbox.limits());
    return sandbox;
  }

  private static final String OPT_OUT =
      ". local-exec commands are refused until it is fixed. A single-tenant installation may run"
          + " them unsandboxed, as the executor itself, with STAGECRAFT_EXECUTOR_SANDBOX=off.";

  /**
   * Every directory from {@code /} to {@code dir} must let other users pass (mode {@code o+x}):
   * bubblewrap mounts an action's files as the sandbox's uid.
   */
  private static void requireSearchable(Path dir) throws Unavailable, IOException {
    for (Path p = dir.toAbsolutePath(); p != null; p = p.getParent()) {
      int mode = (Integer) Files.getAttribute(p, "unix:mode");
      if ((mode & 01) == 0) {
        throw new Unavailable(
            "the sandbox directory "
                + dir
                + " lies in "
                + p
                + ", which other users cannot enter (mode "
                + Integer.toOctalString(mode & 07777)
                + "), so the sandboxes could not reach their files: set"
                + " STAGECRAFT_EXECUTOR_SANDBOX_DIR to a directory whose parents are searchable"
                + " (the default is /run/stagecraft/sandbox)");
      }
    }
  }

  private static boolean runningAsRoot() {
    try {
      return Integer.valueOf(0).equals(Files.getAttribute(Path.of("/proc/self"), "unix:uid"));
    } catch (IOException | RuntimeException e) {
      return false;
    }
  }

  /** Whether a memory-backed file system can be mounted per action (root outside a container). */
  private static boolean canMount(Path directory) {
    Path probe = directory.resolve("sessions").resolve("probe-" + ProcessHandle.current().pid());
    try {
      Files.createDirectories(probe);
      boolean mounted =
          run(
                  List.of(
                      MOUNT.toString(),
                      "-t",
                      "tmpfs",
                      "-o",
                      "size=1m,mode=0700",
                      "stagecraft-sandbox",
                      probe.toString()))
              == 0;
      if (mounted) {
        run(List.of(UMOUNT.toString(), probe.toString()));
      }
      Files.deleteIfExists(probe);
      return mounted;
    } catch (IOException e) {
      return false;
    }
  }

  private void selfTest() throws Unavailable {
    try (SandboxSession session = open(new ActionIdentity("-", "self-test"))) {
      Process p = session.start(List.of("/bin/true"), Map.of(), null);
      String err = new String(p.getErrorStream().readAllBytes(), StandardCharsets.UTF_8).strip();
      if (!p.waitFor(30, TimeUnit.SECONDS) || p.exitValue() != 0) {
        p.destroyForcibly();
        throw new Unavailable(
            "a command could not run in the sandbox"
                + (err.isEmpty() ? "" : " (" + err + ")")
                + ": bubblewrap needs unprivileged user namespaces (sysctl"
                + " user.max_user_namespaces > 0; on Debian and Ubuntu also"
                + " kernel.unprivileged_userns_clone=1) and every configured path reachable by the"
                + " sandbox uids"
                + OPT_OUT);
      }
    } catch (IOException e) {
      throw new Unavailable(
          "the sandbox could not be set up ("
              + e.getMessage()
              + "): bubblewrap needs unprivileged user namespaces (sysctl"
              + " user.max_user_namespaces > 0; on Debian and Ubuntu also"
              + " kernel.unprivileged_userns_clone=1) and every configured path reachable by the"
              + " sandbox uids"
              + OPT_OUT);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new Unavailable("interrupted while checking the sandbox");
    }
  }

  @Override
  public SandboxSession open(ActionIdentity action) throws Unavailable {
    UidPool.Lease lease;
    try {
      lease =
          uids.lease()
              .orElseThrow(
                  () ->
                      new Unavailable(
                          "every sandbox uid of "
                              + settings.firstUid()
                              + "-"
                              + (settings.firstUid() + settings.uidCount() - 1)
                              + " is in use on this host (STAGECRAFT_EXECUTOR_SANDBOX_UIDS): more"
                              + " actions run local-exec at once than the range has uids"));
    } catch (IOException e) {
      throw new Unavailable("cannot lease a sandbox uid: " + e.getMessage());
    }
    try {
      return SandboxSession.prepare(this, lease, action);
    } catch (IOException | RuntimeException e) {
      lease.close();
      LOG.error("could not prepare a sandbox for action {}", action.actionId(), e);
      throw new Unavailable("the sandbox of this action could not be prepared: " + e.getMessage());
    }
  }

  SandboxSettings settings() {
    return settings;
  }

  ControlGroups cgroups() {
    return cgroups;
  }

  boolean privateMounts() {
    return privateMounts;
  }

  /** What the sandboxes here enforce, for {@code /health} and the start-up log. */
  public Map<String, Object> limits() {
    Map<String, Object> limits = new LinkedHashMap<>();
    List<String> c = cgroups.controllers();
    limits.put(
        "memory",
        settings.memoryBytes() == 0
            ? "none"
            : SandboxSettings.bytes(settings.memoryBytes())
                + (c.contains("memory") ? " per action (cgroup)" : " per process (RLIMIT_DATA)"));
    limits.put(
        "processes",
        settings.processes()
            + (c.contains("pids") ? " per action (cgroup pids, RLIMIT_NPROC)" : " (RLIMIT_NPROC)"));
    limits.put(
        "cpus",
        settings.cpus() == 0 || !c.contains("cpu")
            ? "none"
            : settings.cpus() + " (cgroup cpu quota)");
    limits.put(
        "disk",
        privateMounts
            ? SandboxSettings.bytes(settings.diskBytes()) + " per action (tmpfs)"
            : "none (the executor may not mount: a directory on its disk)");
    return limits;
  }

  /** Runs a short host command (mount, umount) and returns its exit status. */
  static int run(List<String> argv) throws IOException {
    ProcessBuilder builder = new ProcessBuilder(argv).redirectErrorStream(true);
    builder.environment().clear();
    builder.environment().put("PATH", "/usr/sbin:/usr/bin:/sbin:/bin");
    Process p = builder.start();
    try {
      String output = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
      if (!p.waitFor(30, TimeUnit.SECONDS)) {
        p.destroyForcibly();
        throw new IOException(argv.get(0) + " did not finish within 30 s");
      }
      if (p.exitValue() != 0) {
        LOG.debug("{} exited {}: {}", argv, p.exitValue(), output.strip());
      }
      return p.exitValue();
    } catch (InterruptedException e) {
      p.destroyForcibly();
      Thread.currentThread().interrupt();
      throw new IOException("interrupted while running " + argv.get(0), e);
    }
  }

  /** The sandbox options of the system directories: read-only binds, symlinks kept as symlinks. */
  List<String> systemMounts() throws IOException {
    List<String> args = new ArrayList<>();
    for (String p : settings.systemPaths()) {
      Path path = Path.of(p);
      if (Files.isSymbolicLink(path)) {
        args.addAll(List.of("--symlink", Files.readSymbolicLink(path).toString(), p));
      } else if (Files.isDirectory(path)) {
        args.addAll(List.of("--ro-bind", p, p));
      }
    }
    return args;
  }

  /** The limits as {@link Optional} sentences after a session's commands ended. */
  Optional<String> hits(ControlGroups.Group group, long oomBefore, long pidsBefore) {
    return group.hits(settings.memoryBytes(), settings.processes(), oomBefore, pidsBefore);
  }
}
