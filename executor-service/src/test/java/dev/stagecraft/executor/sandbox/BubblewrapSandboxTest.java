package dev.stagecraft.executor.sandbox;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.stagecraft.executor.step.LocalCommands;
import dev.stagecraft.executor.step.LocalCommands.ActionIdentity;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The sandbox on the real kernel with the real bubblewrap (installed by dev/test; the tests run as
 * root, as the executor does): what a command inside can and cannot see or do.
 */
class BubblewrapSandboxTest {
  static final int FIRST_UID = 300_000;
  static Path directory;
  static BubblewrapSandbox sandbox;

  @BeforeAll
  static void createSandbox() throws Exception {
    directory = Path.of("target", "sandbox-" + ProcessHandle.current().pid()).toAbsolutePath();
    sandbox =
        BubblewrapSandbox.create(
            SandboxSettings.defaults(directory)
                .withUids(FIRST_UID, 100)
                .withLimits(64L << 20, 4L << 20, 32, 1.0));
  }

  @AfterAll
  static void removeDirectory() throws IOException {
    SandboxTestFiles.deleteTree(directory);
  }

  /** Runs a shell command in the session; returns exit status and output (stderr after stdout). */
  static Result sh(LocalCommands.Session session, String command) throws Exception {
    return sh(session, command, Map.of(), null);
  }

  static Result sh(
      LocalCommands.Session session, String command, Map<String, String> env, String dir)
      throws Exception {
    Process p = session.start(List.of("/bin/sh", "-c", command), env, dir);
    String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    String err = new String(p.getErrorStream().readAllBytes(), StandardCharsets.UTF_8);
    assertThat(p.waitFor(60, TimeUnit.SECONDS)).isTrue();
    return new Result(p.exitValue(), out + err);
  }

  record Result(int exit, String output) {}

  static LocalCommands.Session open() throws LocalCommands.Unavailable {
    return sandbox.open(new ActionIdentity("run-test", "run-test/x"));
  }

  @Test
  void aCommandSeesOnlyTheDocumentedEnvironmentAndItsOwn() throws Exception {
    try (var session = open()) {
      Result r = sh(session, "env | sort", Map.of("DEPLOY_TARGET", "prod"), null);

      assertThat(r.exit()).isZero();
      List<String> names =
          r.output().lines().map(l -> l.substring(0, l.indexOf('='))).sorted().toList();
      assertThat(names)
          .containsExactly(
              "DEPLOY_TARGET", "HOME", "LANG", "LOGNAME", "PATH", "PWD", "SHELL", "TMPDIR", "USER");
      assertThat(r.output()).contains("HOME=/home/stagecraft", "DEPLOY_TARGET=prod");
      // nothing of the process that started it (the executor's environment)
      for (String name : System.getenv().keySet()) {
        if (!List.of("HOME", "LANG", "PATH", "PWD", "SHELL", "USER", "LOGNAME", "TMPDIR")
            .contains(name)) {
          assertThat(names).doesNotContain(name);
        }
      }
    }
  }

  @Test
  void runsAsAnUnprivilegedUidOfItsOwnThatNoOtherSessionShares() throws Exception {
    try (var a = open();
        var b = open()) {
      Result ra = sh(a, "id -u; id -un; cat /proc/self/status | grep CapEff");
      Result rb = sh(b, "id -u");

      int uidA = Integer.parseInt(ra.output().lines().findFirst().orElseThrow());
      int uidB = Integer.parseInt(rb.output().strip());
      assertThat(uidA).isBetween(FIRST_UID, FIRST_UID + 99).isNotEqualTo(uidB);
      assertThat(uidB).isBetween(FIRST_UID, FIRST_UID + 99);
      assertThat(ra.output()).contains("stagecraft").contains("CapEff:\t0000000000000000");
    }
  }

  @Test
  void startsInAnEmptyPrivateWorkingDirectoryThatTheStepsOfTheActionShareAndThatGoesWithIt()
      throws Exception {
    Path hostDirectory;
    try (var session = open()) {
      Result first = sh(session, "pwd; ls -A; echo kept > artifact; mkdir sub");
      assertThat(first.output()).isEqualTo("/work\n");

      Result second = sh(session, "cat ../artifact; pwd", Map.of(), "sub");
      assertThat(second.output()).isEqualTo("kept\n/work/sub\n");

      int uid = Integer.parseInt(sh(session, "id -u").output().strip());
      hostDirectory = directory.resolve("sessions").resolve(Integer.toString(uid));
      assertThat(hostDirectory.resolve("work").resolve("artifact")).exists();
    }
    assertThat(hostDirectory).doesNotExist();
    assertThat(Files.readString(Path.of("/proc/mounts"))).doesNotContain(hostDirectory.toString());
  }

  @Test
  void seesNoOtherProcessAndCannotSignalOne() throws Exception {
    long executor = ProcessHandle.current().pid();
    try (var session = open()) {
      Result r =
          sh(
              session,
              "ls /proc | grep -E '^[0-9]+$' | wc -l; cat /proc/"
                  + executor
                  + "/environ; kill -9 "
                  + executor
                  + "; echo kill=$?; cat /proc/1/environ | tr '\\0' '\\n' | grep -c STAGECRAFT");

      // its own shell, the pipeline and bubblewrap's init: a handful, not the host's hundreds
      assertThat(Integer.parseInt(r.output().lines().findFirst().orElseThrow().strip()))
          .isLessThan(10);
      assertThat(r.output()).contains("No such file or directory").contains("kill=1");
      // bubblewrap's init (pid 1) holds nothing of the executor's environment
      assertThat(r.output().lines().toList().get(2)).isEqualTo("0");
    }
    assertThat(ProcessHandle.current().isAlive()).isTrue();
  }

  @Test
  void readsNoFileOfTheExecutorNorOfAnotherAction() throws Exception {
    Path executorFile = Path.of("target", "executor-file.txt").toAbsolutePath();
    Files.writeString(executorFile, "executor-secret");
    try (var a = open();
        var b = open()) {
      sh(a, "echo tenant-a-secret > secret; echo tmp-secret > /tmp/t; echo home > ~/h");
      int uidA = Integer.parseInt(sh(a, "id -u").output().strip());

      Result r =
          sh(
              b,
              "cat "
                  + executorFile
                  + "; ls "
                  + Path.of("").toAbsolutePath()
                  + "; cat "
                  + directory.resolve("sessions/" + uidA + "/work/secret")
                  + "; cat /tmp/t; ls /root; cat /etc/shadow; ls -A /tmp ~");

      assertThat(r.output())
          .doesNotContain("executor-secret", "tenant-a-secret", "tmp-secret")
          .contains("No such file or directory")
          .contains("/etc/shadow: Permission denied");
      assertThat(sh(a, "cat secret").output()).isEqualTo("tenant-a-secret\n");
    }
  }

  @Test
  void systemDirectoriesAreReadOnlyAndNothingElseIsWritable() throws Exception {
    try (var session = open()) {
      Result r =
          sh(
              session,
              "touch /usr/x /etc/x /x /dev/x 2>&1 | grep -c 'Read-only file system';"
                  + " touch /tmp/ok ~/ok ok /dev/shm/ok && echo writable");

      assertThat(r.output()).isEqualTo("4\nwritable\n");
    }
  }

  @Test
  void aCommandCannotCreateUserNamespacesOfItsOwn() throws Exception {
    try (var session = open()) {
      Result r = sh(session, "unshare -U -r id -u");

      assertThat(r.exit()).isNotZero();
      assertThat(r.output()).doesNotContain("\n0\n").contains("unshare");
    }
  }

  @Test
  void exceedingTheMemoryLimitKillsTheCommandAndNamesTheLimit() throws Exception {
    try (var session = open()) {
      // tail keeps an unterminated line whole: 200 MB against the 64 MiB limit
      Result r = sh(session, "head -c 200000000 /dev/zero | tail -n 1 > /dev/null");

      assertThat(r.exit()).isNotZero();
      assertThat(session.exceededLimit())
          .hasValueSatisfying(
              s ->
                  assertThat(s)
                      .contains("memory limit of 64 MiB")
                      .contains("STAGECRAFT_EXECUTOR_SANDBOX_MEMORY"));
      // the next command of the action starts with a clean slate
      assertThat(sh(session, "true").exit()).isZero();
      assertThat(session.exceededLimit()).isEmpty();
    }
  }

  @Test
  void reachingTheProcessLimitFailsForksAndNamesTheLimit() throws Exception {
    try (var session = open()) {
      Result r = sh(session, "for i in $(seq 1 60); do sleep 30 & done; wait");

      assertThat(r.exit()).isNotZero();
      assertThat(session.exceededLimit())
          .hasValueSatisfying(s -> assertThat(s).contains("limit of 32 processes"));
    }
  }

  @Test
  void fillingTheDiskSpaceFailsWritesAndNamesTheLimit() throws Exception {
    try (var session = open()) {
      Result r = sh(session, "head -c 8000000 /dev/zero > big");

      assertThat(r.exit()).isNotZero();
      assertThat(r.output()).contains("No space left on device");
      assertThat(session.exceededLimit())
          .hasValueSatisfying(
              s -> assertThat(s).contains("4 MiB of disk space").contains("SANDBOX_DISK"));
    }
  }

  @Test
  void refusesAWorkingDirectoryOutsideTheActionsDirectoryAndOneThatDoesNotExist() throws Exception {
    try (var session = open()) {
      assertThatThrownBy(() -> session.start(List.of("/bin/true"), Map.of(), "/etc"))
          .isInstanceOf(LocalCommands.InvalidStep.class)
          .hasMessageContaining("outside the action's private working directory");
      assertThatThrownBy(() -> session.start(List.of("/bin/true"), Map.of(), "../x"))
          .isInstanceOf(LocalCommands.InvalidStep.class);
      assertThatThrownBy(() -> session.start(List.of("/bin/true"), Map.of(), "missing"))
          .isInstanceOf(LocalCommands.InvalidStep.class)
          .hasMessageContaining("does not exist");
    }
  }

  @Test
  void aNulCharacterCannotSmuggleSandboxOptionsIn() throws Exception {
    try (var session = open()) {
      assertThatThrownBy(
              () ->
                  session.start(
                      List.of("/bin/sh", "-c", "cat /host/etc/shadow"),
                      Map.of("X", "a\0--bind\0/\0/host"),
                      null))
          .isInstanceOf(LocalCommands.InvalidStep.class)
          .hasMessageContaining("NUL");
    }
  }

  @Test
  void sharedPathsAreWritableByTheCommandsOfEveryActionAndNothingElseOfTheHostIs()
      throws Exception {
    Path shared = Files.createDirectories(directory.resolve("shared-journal"));
    Files.setAttribute(shared, "unix:mode", 01777);
    Path dir = directory.resolveSibling(directory.getFileName() + "-shared");
    BubblewrapSandbox withShared =
        BubblewrapSandbox.create(
            SandboxSettings.defaults(dir)
                .withUids(FIRST_UID + 210, 10)
                .withSharedPaths(List.of(shared.toString())));
    try {
      Path journal = shared.resolve("journal");
      try (var a = withShared.open(new ActionIdentity("run", "run/a"));
          var b = withShared.open(new ActionIdentity("run", "run/b"))) {
        assertThat(sh(a, "echo a >> " + journal).exit()).isZero();
        assertThat(sh(b, "echo b >> " + journal + "; ls " + dir).output())
            .contains("No such file or directory");
      }
      assertThat(Files.readAllLines(journal)).containsExactly("a", "b");
    } finally {
      SandboxTestFiles.deleteTree(dir);
    }
  }

  @Test
  void aSandboxDirectoryTheSandboxUidsCannotReachIsRefusedNamingTheSetting() throws Exception {
    Path closed = Files.createTempDirectory("closed"); // 0700: nobody else may enter
    try {
      assertThatThrownBy(
              () -> BubblewrapSandbox.create(SandboxSettings.defaults(closed.resolve("sandbox"))))
          .isInstanceOf(LocalCommands.Unavailable.class)
          .hasMessageContaining("lies in " + closed)
          .hasMessageContaining("mode 700")
          .hasMessageContaining("STAGECRAFT_EXECUTOR_SANDBOX_DIR");
    } finally {
      SandboxTestFiles.deleteTree(closed);
    }
  }

  @Test
  void aUidIsLeasedOncePerHostAndTheLeftoversOfADeadHolderAreRemovedBeforeReuse() throws Exception {
    Path dir = directory.resolveSibling(directory.getFileName() + "-one-uid");
    BubblewrapSandbox single =
        BubblewrapSandbox.create(SandboxSettings.defaults(dir).withUids(FIRST_UID + 200, 1));
    try {
      // what an executor killed mid-action leaves: its session's files
      Path leftover = dir.resolve("sessions").resolve(Integer.toString(FIRST_UID + 200));
      Files.createDirectories(leftover.resolve("work"));
      Files.writeString(leftover.resolve("work").resolve("stale"), "from a dead executor");

      try (var session = single.open(new ActionIdentity("run", "run/a"))) {
        assertThat(sh(session, "ls -A").output()).isEmpty();
        assertThatThrownBy(() -> single.open(new ActionIdentity("run", "run/b")))
            .isInstanceOf(LocalCommands.Unavailable.class)
            .hasMessageContaining("every sandbox uid of 300200-300200 is in use");
      }
      try (var again = single.open(new ActionIdentity("run", "run/c"))) {
        assertThat(sh(again, "id -u").output().strip()).isEqualTo("300200");
      }
    } finally {
      SandboxTestFiles.deleteTree(dir);
    }
  }
}
