package dev.stagecraft.executor.sandbox;

import dev.stagecraft.executor.step.LocalCommands;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.stream.Stream;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The sandbox of one action: its uid, its private file system and its control groups (see {@link
 * BubblewrapSandbox}). Used by the action's thread only.
 */
final class SandboxSession implements LocalCommands.Session {
  private static final Logger LOG = LoggerFactory.getLogger(SandboxSession.class);

  /** Inside the sandbox: the working directory, home and the user's name. */
  static final String WORK = "/work";

  static final String HOME = "/home/stagecraft";
  static final String USER = "stagecraft";

  private static final int PIDS_BACKSTOP = 16;

  /**
   * The environment every command starts with, before the provisioner's own {@code environment}
   * (docs: executor-service/README.md). Nothing of the executor's.
   */
  static Map<String, String> baseEnvironment() {
    Map<String, String> env = new LinkedHashMap<>();
    env.put("PATH", "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin");
    env.put("HOME", HOME);
    env.put("USER", USER);
    env.put("LOGNAME", USER);
    env.put("SHELL", "/bin/sh");
    env.put("LANG", "C.UTF-8");
    env.put("TMPDIR", "/tmp");
    return env;
  }

  /**
   * Enters the control groups (the count, then the {@code cgroup.procs} files), sets the umask,
   * then runs the rest with the file of bwrap's arguments as descriptor 3 (standard input stays the
   * step server's request pipe). Fixed text: nothing of a tenant's reaches it.
   */
  private static final String ENTER =
      "n=$1; shift; while [ \"$n\" -gt 0 ]; do echo $$ > \"$1\" || exit 125; shift; n=$((n-1));"
          + " done; umask \"$1\"; shift; a=$1; shift; exec \"$@\" 3<\"$a\"";

  private final BubblewrapSandbox sandbox;
  private final UidPool.Lease lease;
  private final Path root;
  private final ControlGroups.Group group;
  private StepServer server; // started by the first step, again after it ended under one
  private long oomBefore;
  private long pidsBefore;
  private boolean closed;

  private SandboxSession(
      BubblewrapSandbox sandbox, UidPool.Lease lease, Path root, ControlGroups.Group group) {
    this.sandbox = sandbox;
    this.lease = lease;
    this.root = root;
    this.group = group;
  }

  /**
   * Removes what a dead holder of the uid left, then builds the action's file system and groups.
   */
  static SandboxSession prepare(
      BubblewrapSandbox sandbox, UidPool.Lease lease, LocalCommands.ActionIdentity action)
      throws IOException {
    SandboxSettings s = sandbox.settings();
    int uid = lease.uid();
    Path root = s.directory().resolve("sessions").resolve(Integer.toString(uid));
    removeFileSystem(root, sandbox.privateMounts());
    Files.createDirectories(root);
    if (sandbox.privateMounts()
        && BubblewrapSandbox.run(
                List.of(
                    BubblewrapSandbox.MOUNT.toString(),
                    "-t",
                    "tmpfs",
                    "-o",
                    "size=" + s.diskBytes() + ",mode=0755,nosuid,nodev",
                    "stagecraft-sandbox",
                    root.toString()))
            != 0) {
      throw new IOException("mounting the private file system at " + root + " failed");
    }
    ControlGroups.Group group = null;
    try {
      Path control = Files.createDirectory(root.resolve("control"));
      if (BubblewrapSandbox.run(
              List.of(
                  BubblewrapSandbox.MKFIFO.toString(),
                  "-m",
                  "0600",
                  control.resolve("out").toString(),
                  control.resolve("err").toString()))
          != 0) {
        throw new IOException("creating the step output FIFOs in " + control + " failed");
      }
      Files.createFile(control.resolve("step.sh"));
      for (Path p : List.of(control, control.resolve("out"), control.resolve("err"))) {
        Files.setAttribute(p, "unix:gid", uid);
        Files.setAttribute(p, "unix:uid", uid);
      }
      Files.setAttribute(control, "unix:mode", 0500);
      Path script = control.resolve("step.sh"); // holds the step's environment: the uid's only
      Files.setAttribute(script, "unix:mode", 0400);
      Files.setAttribute(script, "unix:gid", uid);
      Files.setAttribute(script, "unix:uid", uid);
      for (String dir : List.of("work", "home", "tmp", "shm")) {
        Path d = Files.createDirectory(root.resolve(dir));
        Files.setAttribute(d, "unix:mode", 0700);
        Files.setAttribute(d, "unix:gid", uid);
        Files.setAttribute(d, "unix:uid", uid);
      }
      Files.writeString(
          root.resolve("passwd"),
          "root:x:0:0:root:/root:/usr/sbin/nologin\n"
              + USER
              + ":x:"
              + uid
              + ":"
              + uid
              + ":Stagecraft sandbox:"
              + HOME
              + ":/bin/sh\n"
              + "nobody:x:65534:65534:nobody:/nonexistent:/usr/sbin/nologin\n");
      Files.writeString(
          root.resolve("group"), "root:x:0:\n" + USER + ":x:" + uid + ":\nnogroup:x:65534:\n");
      group = sandbox.cgroups().create(uid, s.memoryBytes(), s.processes(), s.cpus());
    } catch (IOException | RuntimeException e) {
      removeFileSystem(root, sandbox.privateMounts());
      throw e;
    }
    LOG.debug("sandbox uid {} for action {} of run {}", uid, action.actionId(), action.runId());
    return new SandboxSession(sandbox, lease, root, group);
  }

  @Override
  public Process start(List<String> argv, Map<String, String> environment, String workingDir)
      throws IOException {
    if (closed) {
      throw new IllegalStateException("the sandbox of this action is closed");
    }
    String chdir = workingDirectory(workingDir);
    Map<String, String> env = stepEnvironment(environment);
    List<String> all = new ArrayList<>(argv);
    env.forEach(
        (k, v) -> {
          all.add(k);
          all.add(v);
        });
    for (String a : all) {
      if (a.indexOf('\0') >= 0) {
        throw new LocalCommands.InvalidStep(
            "the command, its interpreter or its environment contains a NUL character, which no"
                + " command line can hold; remove it");
      }
    }
    if (argv.isEmpty() || argv.get(0).indexOf('=') >= 0) {
      throw new LocalCommands.InvalidStep(
          "the interpreter \""
              + (argv.isEmpty() ? "" : argv.get(0))
              + "\" is not a program name (empty or with '='); name the program, e.g. bash");
    }
    if (server == null || !server.alive()) {
      if (server != null) {
        server.close(); // ended under its last step (killed, out of memory): a new one
      }
      server = startServer();
    }
    oomBefore = group.oomKills();
    pidsBefore = group.processLimitHits();
    return server.run(StepScript.of(argv, env, chdir));
  }

  /**
   * Starts the action's step server: {@code /bin/sh} (the fixed {@link #ENTER} script) enters the
   * control groups and sets the umask, {@code prlimit} the rlimits, {@code setpriv} drops to the
   * uid, {@code bwrap} builds the namespaces (reading its options from a file only root reads) and
   * runs {@link StepServer#SCRIPT}.
   */
  private StepServer startServer() throws IOException {
    SandboxSettings s = sandbox.settings();
    Path args = root.resolve("bwrap-args");
    try (OutputStream file = Files.newOutputStream(args)) {
      for (String a : bwrapArguments()) {
        file.write(a.getBytes(StandardCharsets.UTF_8));
        file.write(0);
      }
    }
    Files.writeString(root.resolve("sandbox.log"), "");
    List<String> command = new ArrayList<>(List.of("/bin/sh", "-c", ENTER, "stagecraft-sandbox"));
    List<Path> procs = group.procsFiles();
    command.add(Integer.toString(procs.size()));
    procs.forEach(p -> command.add(p.toString()));
    // Files another sandbox (another uid) must append to later are made writable for all; only
    // shared paths are reachable by more than one uid (the private directories are 0700).
    command.add(s.sharedPaths().isEmpty() ? "022" : "000");
    command.add(args.toString());
    List<String> controllers = sandbox.cgroups().controllers();
    boolean perProcessMemory = s.memoryBytes() > 0 && !controllers.contains("memory");
    // With a pids group, the uid's RLIMIT_NPROC is only a backstop above it, so that the group's
    // limit is the one a fork meets and its counter tells the step it was hit.
    int nproc = s.processes() + (controllers.contains("pids") ? PIDS_BACKSTOP : 0);
    int uid = lease.uid();
    command.addAll(
        List.of(
            BubblewrapSandbox.PRLIMIT.toString(),
            "--nproc=" + nproc,
            "--core=0",
            perProcessMemory ? "--data=" + s.memoryBytes() : "--data=unlimited",
            "--",
            BubblewrapSandbox.SETPRIV.toString(),
            "--reuid=" + uid,
            "--regid=" + uid,
            "--clear-groups",
            "--no-new-privs",
            "--",
            BubblewrapSandbox.BWRAP.toString(),
            "--args",
            "3",
            "--",
            "/bin/sh",
            "-c",
            StepServer.SCRIPT));
    return StepServer.start(command, root.resolve("control"), root.resolve("sandbox.log"));
  }

  /** The sandbox's directory to start in: relative to {@code /work}, which it must not leave. */
  private String workingDirectory(String workingDir) throws LocalCommands.InvalidStep {
    if (workingDir == null || workingDir.isBlank()) {
      return WORK;
    }
    Path relative = Path.of(workingDir).normalize();
    if (relative.isAbsolute() || relative.startsWith("..")) {
      throw new LocalCommands.InvalidStep(
          "working_dir \""
              + workingDir
              + "\" is outside the action's private working directory; commands run in a sandbox"
              + " whose working directory is empty at the start of the action: use a relative"
              + " path to a directory an earlier step of the action created, or cd in the command");
    }
    if (!Files.isDirectory(root.resolve("work").resolve(relative))) {
      throw new LocalCommands.InvalidStep(
          "working_dir \""
              + workingDir
              + "\" does not exist in the action's private working directory (it starts empty;"
              + " an earlier step of the action must create it)");
    }
    return relative.toString().isEmpty() ? WORK : WORK + "/" + relative;
  }

  /** The namespaces and mounts of the action's sandbox; each step sets its own environment. */
  private List<String> bwrapArguments() throws IOException {
    int uid = lease.uid();
    List<String> a = new ArrayList<>();
    a.addAll(List.of("--unshare-all", "--share-net", "--unshare-user", "--disable-userns"));
    a.addAll(List.of("--uid", Integer.toString(uid), "--gid", Integer.toString(uid)));
    a.addAll(List.of("--hostname", "stagecraft-sandbox", "--die-with-parent", "--new-session"));
    a.addAll(sandbox.systemMounts());
    a.addAll(List.of("--ro-bind", root.resolve("passwd").toString(), "/etc/passwd"));
    a.addAll(List.of("--ro-bind", root.resolve("group").toString(), "/etc/group"));
    a.addAll(List.of("--proc", "/proc", "--dev", "/dev", "--remount-ro", "/dev"));
    a.addAll(List.of("--bind", root.resolve("shm").toString(), "/dev/shm"));
    a.addAll(List.of("--bind", root.resolve("tmp").toString(), "/tmp"));
    a.addAll(List.of("--bind", root.resolve("home").toString(), HOME));
    a.addAll(List.of("--bind", root.resolve("work").toString(), WORK));
    a.addAll(List.of("--ro-bind", root.resolve("control").toString(), StepServer.INSIDE));
    for (String shared : sandbox.settings().sharedPaths()) {
      a.addAll(List.of("--bind", shared, shared));
    }
    a.addAll(List.of("--remount-ro", "/", "--chdir", WORK, "--clearenv"));
    baseEnvironment().forEach((k, v) -> a.addAll(List.of("--setenv", k, v)));
    return a;
  }

  /** The base environment with the provisioner's own {@code environment} over it. */
  private static Map<String, String> stepEnvironment(Map<String, String> environment)
      throws LocalCommands.InvalidStep {
    Map<String, String> env = baseEnvironment();
    for (Map.Entry<String, String> e : environment.entrySet()) {
      String name = e.getKey();
      if (name.isEmpty() || name.indexOf('=') >= 0) {
        throw new LocalCommands.InvalidStep(
            "environment variable name \"" + name + "\" is not valid (empty or with '=')");
      }
      env.put(name, e.getValue() == null ? "" : e.getValue());
    }
    return env;
  }

  @Override
  public Optional<String> exceededLimit() {
    Optional<String> hits = sandbox.hits(group, oomBefore, pidsBefore);
    if (sandbox.privateMounts() && diskFull()) {
      String disk =
          "it filled the action's "
              + SandboxSettings.bytes(sandbox.settings().diskBytes())
              + " of disk space (working directory, home and /tmp together;"
              + " STAGECRAFT_EXECUTOR_SANDBOX_DISK)";
      return Optional.of(hits.map(h -> h + "; " + disk).orElse(disk));
    }
    return hits;
  }

  private boolean diskFull() {
    try {
      return Files.getFileStore(root.resolve("work")).getUsableSpace() < 64 * 1024;
    } catch (IOException e) {
      return false;
    }
  }

  @Override
  public void close() {
    if (closed) {
      return;
    }
    closed = true;
    // An interrupted action (cancel, shutdown) still cleans up: unmounting must not be cut short.
    boolean interrupted = Thread.interrupted();
    try {
      if (server != null) {
        server.close();
      }
      group.close(); // kills anything left
      removeFileSystem(root, sandbox.privateMounts());
    } catch (IOException | RuntimeException e) {
      LOG.error("could not remove the sandbox of uid {} at {}", lease.uid(), root, e);
    } finally {
      lease.close();
      if (interrupted) {
        Thread.currentThread().interrupt();
      }
    }
  }

  /** Unmounts (when mounted) and deletes a session's file system; nothing there is left. */
  private static void removeFileSystem(Path root, boolean mounted) throws IOException {
    if (!Files.exists(root)) {
      return;
    }
    if (mounted) {
      // exit 32 = not mounted (a crash before the mount): the tree is deleted below either way
      BubblewrapSandbox.run(List.of(BubblewrapSandbox.UMOUNT.toString(), root.toString()));
    }
    try (Stream<Path> tree = Files.walk(root)) {
      for (Path p : tree.sorted(Comparator.reverseOrder()).toList()) {
        Files.deleteIfExists(p);
      }
    }
  }
}
