package dev.stagecraft.devstack;

import dev.stagecraft.platform.auth.ServiceRole;
import dev.stagecraft.platform.kafka.KafkaSettings;
import dev.stagecraft.schemas.seal.SecretsKeyring;
import java.io.IOException;
import java.io.PrintStream;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.channels.OverlappingFileLockException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.Properties;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * The dev stack supervisor: Kafka and PostgreSQL in this JVM, the four services as child processes.
 *
 * <p>Concurrency: {@link #start} and {@link #close} run on one thread each (the caller, then the
 * shutdown hook); {@code close} is idempotent. One supervisor per data directory, enforced by a
 * file lock on {@code supervisor.lock}.
 */
public final class DevStack implements AutoCloseable {
  private static final Duration STOP_GRACE = Duration.ofSeconds(15);

  private final DevStackOptions options;
  private final DevStackLayout layout;
  private final AtomicBoolean closed = new AtomicBoolean();
  private final List<ServiceProcess> services = new ArrayList<>();
  private FileChannel lockChannel;
  private FileLock lock;
  private DevKafka kafka;
  private EmbeddedPostgresServer postgres;
  private int stoppedPostgresPort;
  private DevStackOptions.ExternalDatabase database;
  private volatile StackInfo info;
  private DevCredentials credentials;
  private final ServiceRestarts restarts;

  private DevStack(DevStackOptions options) {
    this.options = options;
    this.layout = new DevStackLayout(options.dataDir());
    this.restarts =
        new ServiceRestarts(
            new ServiceRestarts.Host() {
              @Override
              public ServiceProcess restartIfCurrent(ServiceProcess exited) throws Exception {
                return DevStack.this.restartIfCurrent(exited);
              }

              @Override
              public boolean isCurrent(ServiceProcess p) {
                synchronized (DevStack.this) {
                  return process(p.service()) == p;
                }
              }
            },
            options.out());
  }

  /**
   * Starts everything and returns once every service answers {@code /health} with 200 and the dev
   * tenant is bootstrapped. On failure, whatever was started is stopped again.
   */
  public static DevStack start(DevStackOptions options) throws Exception {
    DevStack stack = new DevStack(options);
    try {
      stack.startAll();
      return stack;
    } catch (Exception | Error e) {
      stack.close();
      throw e;
    }
  }

  private void startAll() throws Exception {
    PrintStream out = options.out();
    Files.createDirectories(layout.logsDir());
    acquireLock();
    stopLeftoversOfACrashedSupervisor();

    // secured, with the principals' ACLs and every topic, before any service starts
    kafka = DevKafka.start(layout, preferredPort(options.kafkaPort()));
    if (options.externalDb() != null) {
      database = options.externalDb();
    } else {
      postgres =
          EmbeddedPostgresServer.start(layout.postgresDir(), preferredPort(options.postgresPort()));
      database =
          new DevStackOptions.ExternalDatabase(
              postgres.jdbcUrl(), postgres.user(), postgres.password());
    }
    StackCredentials tokens = StackCredentials.loadOrGenerate(layout);
    String secretsKeys = secretsKeys();

    Map<StackService, Integer> ports = new EnumMap<>(StackService.class);
    for (StackService s : StackService.values()) {
      ports.put(s, preferredPort(options.ports().getOrDefault(s, 0)));
    }
    for (int group = 0; group <= 1; group++) {
      List<ServiceProcess> started = new ArrayList<>();
      for (StackService s : StackService.values()) {
        if (s.startGroup() == group) {
          ServiceProcess p =
              ServiceProcess.start(
                  s,
                  options.javaCommand(),
                  jar(s),
                  ports.get(s),
                  serviceEnv(s, ports, tokens, secretsKeys),
                  layout.serviceLog(s));
          services.add(p);
          started.add(p);
        }
      }
      for (ServiceProcess p : started) {
        p.awaitHealthy(options.healthTimeout());
      }
    }

    credentials =
        new DevTenantBootstrap(
                url(ports.get(StackService.STATE)), tokens.token(ServiceRole.OPERATOR))
            .ensure(layout.credentialsFile(), out)
            .orElse(null);

    Map<String, Long> pids = new LinkedHashMap<>();
    services.forEach(p -> pids.put(p.service().key(), p.pid()));
    info =
        new StackInfo(
            ProcessHandle.current().pid(),
            url(ports.get(StackService.PLANNER)),
            url(ports.get(StackService.STATE)),
            url(ports.get(StackService.LOCK)),
            url(ports.get(StackService.EXECUTOR)),
            kafka.bootstrapServers(),
            database.url(),
            layout.dataDir().toString(),
            pids);
    StackFiles.writeJson(layout.stackFile(), info, false);
    StackFiles.writeJson(
        DevStackLayout.pointerFile(options.stagecraftHome()),
        new DevStackPointer(
            info.planner(),
            credentials == null ? null : credentials.token(),
            layout.dataDir().toString()),
        true);
    watchForUnexpectedExits();
  }

  /**
   * A connection to the stack's database as the services' user (the embedded server requires its
   * password, {@link EmbeddedPostgresServer}): for tests and tools that inspect the records.
   */
  public Connection openDatabase() throws SQLException {
    return DriverManager.getConnection(database.url(), database.user(), database.password());
  }

  /**
   * {@code STAGECRAFT_DB_URL}, {@code _USER} and {@code _PASSWORD} of the stack's database, as the
   * services that own a schema get them: for another instance of such a service started beside the
   * stack.
   */
  public Map<String, String> databaseEnv() {
    return Map.of(
        "STAGECRAFT_DB_URL",
        database.url(),
        "STAGECRAFT_DB_USER",
        database.user(),
        "STAGECRAFT_DB_PASSWORD",
        database.password());
  }

  public StackInfo info() {
    return info;
  }

  public DevStackLayout layout() {
    return layout;
  }

  /**
   * The Kafka client settings of a principal ({@code "admin"}, {@code "trigger"}, {@code
   * "planner"}…; {@link StackPrincipal}) on this stack's broker: for tests and tools that talk to
   * Kafka directly.
   *
   * @throws IllegalArgumentException for an unknown principal, naming the known ones
   */
  public KafkaSettings kafkaSettings(String principal) {
    return kafka.settings(StackPrincipal.named(principal));
  }

  /**
   * The properties a Kafka producer, consumer or admin client of {@code principal} needs on this
   * stack's broker: {@code bootstrap.servers} and the SASL settings. A new copy per call.
   */
  public Properties kafkaClientProperties(String principal) {
    return kafkaSettings(principal).client();
  }

  /**
   * The Kafka variables the stack gives {@code service} ({@code STAGECRAFT_KAFKA} and its own
   * principal's credentials), for a test that starts another instance of it.
   */
  public Map<String, String> kafkaEnv(StackService service) {
    return kafka.serviceEnv(service);
  }

  /** The dev tenant's token, or empty when the state service could not issue one. */
  public Optional<DevCredentials> credentials() {
    return Optional.ofNullable(credentials);
  }

  /**
   * Stops the embedded PostgreSQL (fast shutdown: open sessions are ended) and starts it again on
   * the same data directory and port, leaving Kafka and the services running, as an operator's
   * database restart would. For failure tests; the services must reconnect by themselves.
   *
   * <p>Concurrency: not to be called concurrently with itself, {@link #stopPostgres}, {@link
   * #startPostgres} or {@link #close}.
   *
   * @throws IllegalStateException when the stack uses an external database
   */
  public void restartPostgres() throws IOException {
    stopPostgres();
    startPostgres();
  }

  /**
   * Stops the embedded PostgreSQL only (fast shutdown); {@link #startPostgres} brings it back on
   * the same data directory and port. Same concurrency rule as {@link #restartPostgres}.
   *
   * @throws IllegalStateException when the stack uses an external database or it is stopped
   */
  public void stopPostgres() throws IOException {
    if (postgres == null) {
      throw new IllegalStateException(
          stoppedPostgresPort != 0
              ? "PostgreSQL is already stopped"
              : "this stack uses an external database (STAGECRAFT_DB_URL): restart it yourself");
    }
    stoppedPostgresPort = postgres.port();
    postgres.close();
    postgres = null;
  }

  /**
   * Starts the embedded PostgreSQL stopped by {@link #stopPostgres} again, on the same data
   * directory and port. Same concurrency rule as {@link #restartPostgres}.
   *
   * @throws IllegalStateException when it was not stopped by {@link #stopPostgres}
   */
  public void startPostgres() throws IOException {
    if (postgres != null || stoppedPostgresPort == 0) {
      throw new IllegalStateException("PostgreSQL was not stopped by stopPostgres()");
    }
    postgres = EmbeddedPostgresServer.start(layout.postgresDir(), stoppedPostgresPort);
    stoppedPostgresPort = 0;
  }

  /**
   * Stops the embedded Kafka broker (a controlled shutdown of the KRaft server), leaving PostgreSQL
   * and the services running, as an operator's broker restart would; {@link #startKafka} brings it
   * back on the same client port and log directory. For failure tests: the services keep their
   * bootstrap address and must reconnect by themselves.
   *
   * <p>Concurrency: not to be called concurrently with itself, {@link #startKafka} or {@link
   * #close}.
   *
   * @throws IllegalStateException when the broker is already stopped
   */
  public void stopKafka() {
    kafka.stop();
  }

  /**
   * Starts the broker stopped by {@link #stopKafka} again, on the same ports and log directory (its
   * topics, offsets, users and ACLs as they were), and returns once it authenticates every
   * principal. Same concurrency rule as {@link #stopKafka}.
   *
   * @throws IllegalStateException when it was not stopped
   */
  public void startKafka() throws InterruptedException {
    kafka.startAgain();
  }

  /**
   * Kills one service process with SIGKILL (no shutdown hooks, nothing flushed: a crash) and waits
   * until it is gone; it stays down (stopped on purpose, not restarted by the supervisor) until
   * {@link #startAgain} starts it again. For failure tests (a planner killed mid-run must carry its
   * runs on). A process killed by anyone else is started again by the supervisor.
   *
   * <p>Concurrency: not to be called concurrently with itself, {@link #startAgain} or {@link
   * #close}.
   */
  public synchronized void kill(StackService service) throws Exception {
    ServiceProcess p = process(service);
    restarts.stoppedOnPurpose(service);
    p.process().destroyForcibly();
    p.process().onExit().get();
  }

  /**
   * Starts a service stopped by {@link #kill} again, with the same port and settings, and returns
   * once it answers {@code /health}. Same concurrency rule as {@link #kill}.
   *
   * @throws IllegalStateException when the service still runs
   */
  public synchronized void startAgain(StackService service) throws Exception {
    ServiceProcess old = process(service);
    if (old.process().isAlive()) {
      throw new IllegalStateException(service + " is still running: kill it first");
    }
    Map<StackService, Integer> ports = new EnumMap<>(StackService.class);
    services.forEach(p -> ports.put(p.service(), p.port()));
    ServiceProcess restarted =
        ServiceProcess.start(
            service,
            options.javaCommand(),
            jar(service),
            old.port(),
            serviceEnv(service, ports, StackCredentials.loadOrGenerate(layout), secretsKeys()),
            layout.serviceLog(service));
    services.set(services.indexOf(old), restarted);
    restarts.watch(restarted);
    if (info != null) { // stack.json lists the new pid, for a supervisor started after a crash
      info = info.withServicePid(service.key(), restarted.pid());
      StackFiles.writeJson(layout.stackFile(), info, false);
    }
    restarted.awaitHealthy(options.healthTimeout());
  }

  /** {@link ServiceRestarts.Host}: starts the service again unless stopping or replaced. */
  private synchronized ServiceProcess restartIfCurrent(ServiceProcess exited) throws Exception {
    if (closed.get() || process(exited.service()) != exited) {
      return null;
    }
    startAgain(exited.service());
    return process(exited.service());
  }

  /**
   * The process id of the service's current process (it changes when the service is started again),
   * or empty when that process has ended. Same concurrency rule as {@link #kill}.
   */
  public synchronized OptionalLong pid(StackService service) {
    ServiceProcess p = process(service);
    return p.process().isAlive() ? OptionalLong.of(p.pid()) : OptionalLong.empty();
  }

  private ServiceProcess process(StackService service) {
    return services.stream()
        .filter(p -> p.service() == service)
        .findFirst()
        .orElseThrow(() -> new IllegalStateException(service + " is not part of this stack"));
  }

  /** Pids of the service processes, in start order. */
  public List<Long> servicePids() {
    return services.stream().map(ServiceProcess::pid).toList();
  }

  /** The endpoints and the shell exports, as printed after a start. */
  public String summary() {
    return info.summary(credentials == null ? null : credentials.token());
  }

  /** Stops the services (SIGTERM, then kill), then Kafka, then PostgreSQL. Idempotent. */
  @Override
  public void close() {
    if (!closed.compareAndSet(false, true)) {
      return;
    }
    restarts.close(); // no service is started again from now on
    try {
      // Reverse start order: planner and executor first, so that nothing calls a stopped store.
      // Under the monitor: a service being started again is stopped too.
      synchronized (this) {
        stopServices();
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      services.forEach(p -> p.process().destroyForcibly());
    }
    if (kafka != null) {
      try {
        kafka.close();
      } catch (RuntimeException e) {
        options.out().println("warning: stopping Kafka failed: " + e);
      }
    }
    if (postgres != null) {
      try {
        postgres.close();
      } catch (IOException | RuntimeException e) {
        options.out().println("warning: stopping PostgreSQL failed: " + e);
      }
    }
    try {
      if (info != null) {
        Files.deleteIfExists(layout.stackFile());
        removePointerIfOurs();
      }
      if (lock != null) {
        lock.release();
      }
      if (lockChannel != null) {
        lockChannel.close();
      }
    } catch (IOException e) {
      options.out().println("warning: cleaning up " + layout.dataDir() + " failed: " + e);
    }
  }

  private void removePointerIfOurs() throws IOException {
    Path pointer = DevStackLayout.pointerFile(options.stagecraftHome());
    Optional<DevStackPointer> current = StackFiles.readQuietly(pointer, DevStackPointer.class);
    if (current.isPresent() && layout.dataDir().toString().equals(current.get().dataDir())) {
      Files.deleteIfExists(pointer);
    }
  }

  private void acquireLock() throws IOException {
    lockChannel =
        FileChannel.open(layout.lockFile(), StandardOpenOption.CREATE, StandardOpenOption.WRITE);
    try {
      lock = lockChannel.tryLock();
    } catch (OverlappingFileLockException e) {
      lock = null;
    }
    if (lock == null) {
      lockChannel.close();
      lockChannel = null;
      String pid =
          StackFiles.readQuietly(layout.stackFile(), StackInfo.class)
              .map(i -> " (supervisor pid " + i.pid() + ")")
              .orElse("");
      throw new AlreadyRunningException(
          "A dev stack is already running for "
              + layout.dataDir()
              + pid
              + ". Stop it with `./stagecraft down` first, or use another --data-dir.");
    }
  }

  /**
   * A supervisor killed with SIGKILL leaves its services running (and holding the ports). Its
   * stack.json still lists their pids: stop those that still run one of our jars.
   */
  private void stopLeftoversOfACrashedSupervisor() throws IOException {
    Optional<StackInfo> stale = StackFiles.readQuietly(layout.stackFile(), StackInfo.class);
    if (stale.isEmpty()) {
      return;
    }
    if (stale.get().services() != null) {
      for (Map.Entry<String, Long> e : stale.get().services().entrySet()) {
        ProcessHandle.of(e.getValue())
            .filter(ProcessHandle::isAlive)
            .filter(h -> h.info().commandLine().orElse("").contains("-service-app.jar"))
            .ifPresent(
                h -> {
                  options
                      .out()
                      .println(
                          "Stopping " + e.getKey() + " (pid " + h.pid() + ") left by a crash.");
                  h.destroyForcibly();
                  h.onExit().join();
                });
      }
    }
    Files.deleteIfExists(layout.stackFile());
  }

  private void stopServices() throws InterruptedException {
    for (int group = 1; group >= 0; group--) {
      List<ServiceProcess> stopping = new ArrayList<>();
      for (ServiceProcess p : services) {
        if (p.service().startGroup() == group) {
          p.requestStop();
          stopping.add(p);
        }
      }
      for (ServiceProcess p : stopping) {
        p.awaitStopped(STOP_GRACE);
      }
    }
  }

  /**
   * The supervisor starts every service that exits without being asked to stop again, with backoff
   * ({@link ServiceRestarts}); a planner instance that lost its instance lease fences itself by
   * exiting with status 75 (docs/adr/0034) for exactly that.
   */
  private void watchForUnexpectedExits() {
    services.forEach(restarts::watch);
  }

  private Map<String, String> serviceEnv(
      StackService service,
      Map<StackService, Integer> ports,
      StackCredentials tokens,
      String secretsKeys) {
    Map<String, String> env = new LinkedHashMap<>();
    env.put("STAGECRAFT_PORT", Integer.toString(ports.get(service)));
    env.putAll(kafka.serviceEnv(service)); // its own Kafka principal only
    // only the tokens the service holds (docs/internal-api.md "Service roles"); the executor none
    env.putAll(tokens.env(service));
    env.put("STAGECRAFT_INSTANCE_ID", "dev-" + service.key());
    if (service == StackService.STATE
        || service == StackService.LOCK
        || service == StackService.PLANNER) {
      // each owns its own schema in the same server (planner: runs, workspaces, configurations)
      env.putAll(databaseEnv());
    }
    if (service == StackService.PLANNER) {
      env.put("STAGECRAFT_STATE_URL", url(ports.get(StackService.STATE)));
    }
    if (service == StackService.PLANNER) {
      // where other planner instances forward cancel, approve and discard of its runs (ADR 0050)
      env.put("STAGECRAFT_PLANNER_ADVERTISED_URL", url(ports.get(StackService.PLANNER)));
      // a dev stack is one machine's: its git sources may be served from it too (a planner
      // elsewhere fetches from public addresses only unless its operator allows a network)
      env.put("STAGECRAFT_PLANNER_GIT_ALLOWED_NETWORKS", "127.0.0.0/8,::1/128");
    }
    if (service == StackService.PLANNER || service == StackService.STATE) {
      // the state service takes workspace locks for the Terraform HTTP backend
      env.put("STAGECRAFT_LOCK_URL", url(ports.get(StackService.LOCK)));
    }
    if (service == StackService.PLANNER || service == StackService.EXECUTOR) {
      // dispatched actions are sealed; without the keyring these refuse to start
      env.put(SecretsKeyring.ENV, secretsKeys);
      env.put("STAGECRAFT_SECRETS_REQUIRED", "true");
    }
    if (service == StackService.PLANNER) {
      env.put("STAGECRAFT_PUBLIC_STATE_URL", url(ports.get(StackService.STATE)));
      env.put("STAGECRAFT_PUBLIC_LOCK_URL", url(ports.get(StackService.LOCK)));
    }
    // extra settings (e.g. a short action lease in tests); each service ignores the others'
    env.putAll(options.serviceSettings());
    return env;
  }

  private Path jar(StackService s) {
    return options
        .repoDir()
        .resolve(s.artifactId())
        .resolve("target")
        .resolve(s.artifactId() + "-app.jar");
  }

  /**
   * The keyring that seals dispatched actions: one random AES-256 key generated at the first start,
   * kept in secrets-keys (0600). To rotate, put a new {@code kid:key} in front of the file's line.
   */
  private String secretsKeys() throws IOException {
    Path file = layout.secretsKeysFile();
    if (Files.isRegularFile(file)) {
      String kept = Files.readString(file).strip();
      if (!kept.isEmpty()) {
        SecretsKeyring.parse(kept); // a hand-edited file that is wrong fails here, clearly
        return kept;
      }
    }
    String keys = SecretsKeyring.generateEntry("dev1");
    StackFiles.writeString(file, keys + "\n", true);
    return keys;
  }

  private static String url(int port) {
    return "http://127.0.0.1:" + port;
  }

  /** {@code preferred} when it can be bound right now, else a free port. */
  static int preferredPort(int preferred) throws IOException {
    if (preferred != 0) {
      try (ServerSocket probe = new ServerSocket()) {
        probe.bind(new InetSocketAddress(preferred));
        return preferred;
      } catch (IOException busy) {
        // taken: fall through to any free port
      }
    }
    return EmbeddedKafka.freePort();
  }

  /** Another supervisor holds the data directory. */
  public static final class AlreadyRunningException extends IllegalStateException {
    private static final long serialVersionUID = 1L;

    AlreadyRunningException(String message) {
      super(message);
    }
  }
}
