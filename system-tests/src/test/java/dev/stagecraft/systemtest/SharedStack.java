package dev.stagecraft.systemtest;

import dev.stagecraft.cli.CliContext;
import dev.stagecraft.cli.StagecraftCli;
import dev.stagecraft.devstack.DevStack;
import dev.stagecraft.devstack.DevStackLayout;
import dev.stagecraft.devstack.DevStackOptions;
import dev.stagecraft.devstack.StackCredentials;
import dev.stagecraft.platform.auth.ServiceRole;
import java.io.BufferedReader;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.io.StringReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;

/**
 * One real dev stack for the whole test run: a KRaft broker and PostgreSQL in this JVM, the four
 * services as separate processes started from their packaged jars, exactly as {@code stagecraft up}
 * starts them. Tests use their own workspaces, so they do not see each other's state.
 */
final class SharedStack {
  private static SharedStack instance;

  final Path root;
  final Path dataDir;
  final Path home;

  /**
   * Where the tests' local-exec steps keep their journals and gates: the one host directory the
   * executor's sandbox shares with every step ({@code STAGECRAFT_EXECUTOR_SANDBOX_SHARED_PATHS});
   * nothing else of the test's files is visible to a step.
   */
  final Path shared;

  private final Map<String, String> serviceSettings;
  private DevStack stack;

  private SharedStack(Path root) throws Exception {
    this(root, Map.of());
  }

  private SharedStack(Path root, Map<String, String> serviceSettings) throws Exception {
    this.root = root;
    this.dataDir = root.resolve("data");
    this.home = root.resolve("home");
    this.shared = sharedDirectory(root);
    this.serviceSettings = withSharedPath(serviceSettings, shared);
    start();
    Runtime.getRuntime().addShutdownHook(new Thread(this::stop));
  }

  /**
   * A stack of its own (not shared), for a test that kills its services or needs other settings
   * ({@code STAGECRAFT_*} variables given to every service). The caller stops it.
   */
  static SharedStack dedicated(String name, Map<String, String> serviceSettings) throws Exception {
    Path target = Path.of("target").toAbsolutePath();
    Files.createDirectories(target);
    return new SharedStack(Files.createTempDirectory(target, name + "-"), serviceSettings);
  }

  static synchronized SharedStack get() throws Exception {
    if (instance == null) {
      Path target = Path.of("target").toAbsolutePath();
      Files.createDirectories(target);
      instance = new SharedStack(Files.createTempDirectory(target, "stack-"));
    }
    return instance;
  }

  private void start() throws Exception {
    stack =
        DevStack.start(
            new DevStackOptions(
                dataDir,
                repoRoot(),
                home,
                DevStackOptions.anyPorts(),
                0,
                0,
                null,
                DevStackOptions.currentJava(),
                Duration.ofSeconds(120),
                new PrintStream(OutputStreamSink.INSTANCE, true, StandardCharsets.UTF_8),
                serviceSettings));
  }

  /**
   * {@code root/shared}, writable by every sandbox uid (sticky, like /tmp); the root becomes
   * traversable (not listable) so that the sandbox can reach it.
   */
  static Path sharedDirectory(Path root) throws IOException {
    Files.setAttribute(root, "unix:mode", 0711);
    Path dir = Files.createDirectories(root.resolve("shared"));
    Files.setAttribute(dir, "unix:mode", 01777);
    return dir;
  }

  static Map<String, String> withSharedPath(Map<String, String> settings, Path shared) {
    Map<String, String> all = new HashMap<>(settings);
    all.putIfAbsent("STAGECRAFT_EXECUTOR_SANDBOX_SHARED_PATHS", shared.toString());
    return Map.copyOf(all);
  }

  /** Stops everything and starts it again on the same data directory. */
  synchronized void restart() throws Exception {
    stop();
    start();
  }

  synchronized void stop() {
    if (stack != null) {
      stack.close();
      stack = null;
    }
  }

  DevStack stack() {
    return stack;
  }

  String plannerUrl() {
    return stack.info().planner();
  }

  /**
   * Kafka client properties of a principal of the stack's broker ({@code "admin"} reads and
   * inspects anything; {@code "trigger"} is a bot's): bootstrap servers and SASL settings.
   */
  java.util.Properties kafka(String principal) {
    return stack.kafkaClientProperties(principal);
  }

  String token() {
    return stack.credentials().orElseThrow().token();
  }

  /**
   * The stack's token of a service role, for calls of internal routes (the operator's for tenants
   * and tokens, the planner's for the rest: docs/internal-api.md, "Service roles").
   */
  String serviceToken(ServiceRole role) throws IOException {
    return StackCredentials.read(new DevStackLayout(dataDir)).token(role);
  }

  static Path repoRoot() {
    Path here = Path.of("").toAbsolutePath();
    return Files.exists(here.resolve("system-tests")) ? here : here.getParent();
  }

  /** What one CLI invocation printed and returned. */
  record CliResult(int exitCode, String out, String err) {
    String all() {
      return out + err;
    }
  }

  /** Runs {@code stagecraft args...} in-process in {@code dir}, as a user's shell would. */
  CliResult cliWithInput(Path dir, String stdin, String... args) {
    return cliWith(dir, Map.of(), stdin, args);
  }

  /** Runs the CLI with extra environment variables (e.g. {@code TF_VAR_name}). */
  CliResult cliWith(Path dir, Map<String, String> extraEnv, String stdin, String... args) {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    ByteArrayOutputStream err = new ByteArrayOutputStream();
    Map<String, String> env = new HashMap<>(extraEnv);
    env.put("STAGECRAFT_HOME", home.toString());
    env.put("HOME", root.toString());
    CliContext ctx =
        new CliContext(
            dir,
            env,
            new PrintStream(out, true, StandardCharsets.UTF_8),
            new PrintStream(err, true, StandardCharsets.UTF_8),
            new BufferedReader(new StringReader(stdin == null ? "" : stdin)));
    int code = new StagecraftCli().run(args, ctx);
    return new CliResult(
        code, out.toString(StandardCharsets.UTF_8), err.toString(StandardCharsets.UTF_8));
  }

  CliResult cli(Path dir, String... args) {
    return cliWithInput(dir, null, args);
  }

  /** A fresh configuration directory with the given main.tf. */
  Path configDir(String name, String mainTf) throws IOException {
    Path dir = root.resolve("configs").resolve(name);
    Files.createDirectories(dir);
    Files.writeString(dir.resolve("main.tf"), mainTf);
    return dir;
  }

  /** Discards the supervisor's console output (the services log to files under the data dir). */
  private static final class OutputStreamSink extends java.io.OutputStream {
    static final OutputStreamSink INSTANCE = new OutputStreamSink();

    @Override
    public void write(int b) {}
  }
}
