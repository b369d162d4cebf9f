package dev.stagecraft.chaos.soak;

import dev.stagecraft.devstack.DevStack;
import dev.stagecraft.devstack.DevStackLayout;
import dev.stagecraft.devstack.DevStackOptions;
import dev.stagecraft.devstack.ServiceJvm;
import dev.stagecraft.devstack.StackCredentials;
import dev.stagecraft.devstack.StackInfo;
import dev.stagecraft.devstack.StackService;
import java.io.IOException;
import java.io.PrintStream;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.NoSuchElementException;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * The soak's stack on loopback, in a data directory of its own: the dev stack (Kafka and PostgreSQL
 * in this JVM; state, lock, the first planner and executor as processes), a second planner and two
 * more executors as processes of their own; and its {@link SoakNetwork}: two OpenSSH sshd behind
 * TCP proxies, and proxies on planner-2's connections to the state and lock services and on the
 * workload's to planner-1. {@link #close} stops everything (idempotent; also run by the soak's
 * shutdown hook).
 */
final class SoakCluster implements AutoCloseable {
  private static final Duration HEALTH_TIMEOUT = Duration.ofSeconds(180);

  private final DevStack stack;
  private final Path shared;
  private final SoakNetwork network = new SoakNetwork();
  private String plannerOneUrl;
  private final Map<String, SoakInstance> instances = new LinkedHashMap<>();
  private final List<ExtraInstance> extras = new ArrayList<>();
  private final AtomicBoolean closed = new AtomicBoolean();

  private SoakCluster(DevStack stack, Path shared) {
    this.stack = stack;
    this.shared = shared;
  }

  /**
   * Starts it all and returns once every instance answers /health.
   *
   * @param settings {@code STAGECRAFT_*} settings every service gets (leases, heartbeats)
   * @param shared the directory every local-exec sandbox may write (the step journal's)
   * @param sshJournals the directory of the SSH hosts' step journals ({@code ssh-N.journal})
   */
  static SoakCluster start(
      Path dataDir,
      Path repoDir,
      Path shared,
      Path sshJournals,
      Map<String, String> settings,
      int planners,
      int executors,
      PrintStream out)
      throws Exception {
    Map<String, String> all = new HashMap<>(settings);
    all.put("STAGECRAFT_EXECUTOR_SANDBOX_SHARED_PATHS", shared.toString());
    DevStack stack =
        DevStack.start(
            new DevStackOptions(
                dataDir,
                repoDir,
                dataDir.resolve("home"),
                DevStackOptions.anyPorts(),
                0,
                0,
                null,
                DevStackOptions.currentJava(),
                HEALTH_TIMEOUT,
                out,
                all));
    SoakCluster cluster = new SoakCluster(stack, shared);
    try {
      cluster.network.startSshHosts(2, sshJournals);
      cluster.plannerOneUrl = cluster.network.httpProxy(stack.info().planner());
      cluster.instances.put(
          "planner-1", new StackInstance("planner-1", stack, StackService.PLANNER));
      for (int i = 2; i <= planners; i++) {
        cluster.startExtra(StackService.PLANNER, "planner-" + i, all, repoDir);
      }
      cluster.instances.put(
          "executor-1", new StackInstance("executor-1", stack, StackService.EXECUTOR));
      for (int i = 2; i <= executors; i++) {
        cluster.startExtra(StackService.EXECUTOR, "executor-" + i, all, repoDir);
      }
      cluster.instances.put("state-1", new StackInstance("state-1", stack, StackService.STATE));
      cluster.instances.put("lock-1", new StackInstance("lock-1", stack, StackService.LOCK));
      return cluster;
    } catch (Exception | Error e) {
      cluster.close();
      throw e;
    }
  }

  private void startExtra(
      StackService service, String name, Map<String, String> settings, Path repoDir)
      throws Exception {
    int port;
    try (ServerSocket probe = new ServerSocket(0)) {
      port = probe.getLocalPort();
    }
    DevStackLayout layout = stack.layout();
    StackInfo info = stack.info();
    Map<String, String> env = new HashMap<>(settings);
    env.put("STAGECRAFT_PORT", Integer.toString(port));
    env.putAll(stack.kafkaEnv(service));
    env.putAll(StackCredentials.read(layout).env(service));
    env.put("STAGECRAFT_INSTANCE_ID", "soak-" + name);
    env.put("STAGECRAFT_SECRETS_KEYS", Files.readString(layout.secretsKeysFile()).strip());
    env.put("STAGECRAFT_SECRETS_REQUIRED", "true");
    if (service == StackService.PLANNER) {
      env.put("STAGECRAFT_PLANNER_ADVERTISED_URL", "http://127.0.0.1:" + port);
      env.putAll(stack.databaseEnv());
      // planner-2 reaches the state and lock services through proxies a fault may cut
      env.put("STAGECRAFT_STATE_URL", network.httpProxy(info.state()));
      env.put("STAGECRAFT_LOCK_URL", network.httpProxy(info.lock()));
      env.put("STAGECRAFT_PUBLIC_STATE_URL", info.state());
      env.put("STAGECRAFT_PUBLIC_LOCK_URL", info.lock());
    }
    Path jar =
        repoDir
            .resolve(service.artifactId())
            .resolve("target")
            .resolve(service.artifactId() + "-app.jar");
    ExtraInstance extra =
        new ExtraInstance(
            name,
            ServiceJvm.command(DevStackOptions.currentJava(), jar),
            env,
            port,
            layout.logsDir().resolve(name + ".log"),
            HEALTH_TIMEOUT);
    extras.add(extra);
    instances.put(name, extra);
    extra.start();
  }

  DevStack stack() {
    return stack;
  }

  Path shared() {
    return shared;
  }

  SoakNetwork network() {
    return network;
  }

  /** The public API's base URLs, one per planner instance (planner-1's through a proxy). */
  List<String> plannerUrls() {
    List<String> urls = new ArrayList<>();
    urls.add(plannerOneUrl);
    extras.stream().filter(e -> e.name().startsWith("planner-")).forEach(e -> urls.add(e.url()));
    return urls;
  }

  /**
   * @throws NoSuchElementException naming the instances there are
   */
  SoakInstance instance(String name) {
    SoakInstance i = instances.get(name);
    if (i == null) {
      throw new NoSuchElementException(
          "no instance \"" + name + "\" in this soak; there are " + instances.keySet());
    }
    return i;
  }

  boolean has(String name) {
    return instances.containsKey(name);
  }

  /** Resumes any stopped process, stops the extra instances, then the dev stack. Idempotent. */
  @Override
  public void close() {
    if (!closed.compareAndSet(false, true)) {
      return;
    }
    for (SoakInstance i : instances.values()) {
      try {
        i.signal("CONT");
      } catch (Exception | Error e) {
        // best effort: the process may be gone
      }
    }
    extras.forEach(e -> e.close(Duration.ofSeconds(15)));
    stack.close();
    network.close();
  }

  static Path sharedDirectory(Path root) throws IOException {
    Files.setAttribute(root, "unix:mode", 0711);
    Path dir = Files.createDirectories(root.resolve("shared"));
    Files.setAttribute(dir, "unix:mode", 01777);
    return dir;
  }
}
