package dev.stagecraft.devstack;

import java.io.PrintStream;
import java.net.URISyntaxException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.CountDownLatch;

/**
 * {@code java -jar devstack/target/devstack-app.jar [--data-dir DIR] [--repo DIR] [--any-ports]}:
 * runs the dev stack in the foreground until SIGTERM or Ctrl-C. Usually started by {@code
 * stagecraft up}.
 *
 * <p>Environment: {@code STAGECRAFT_DB_URL}/{@code _USER}/{@code _PASSWORD} select an external
 * PostgreSQL; {@code STAGECRAFT_HOME} (default {@code ~/.stagecraft}) is where the CLI pointer
 * goes; {@code STAGECRAFT_HEALTH_TIMEOUT} (seconds, default 120) bounds each service's start.
 */
public final class DevStackMain {
  private DevStackMain() {}

  public static void main(String[] args) throws Exception {
    PrintStream out = new PrintStream(System.out, true, StandardCharsets.UTF_8);
    DevStackOptions options;
    try {
      options = parse(args, System.getenv(), out);
    } catch (IllegalArgumentException e) {
      System.err.println("Error: " + e.getMessage());
      System.err.println(
          "Usage: java -jar devstack-app.jar [--data-dir DIR] [--repo DIR] [--any-ports]");
      System.exit(2);
      return;
    }
    DevStack stack;
    try {
      out.println("Starting the Stagecraft dev stack in " + options.dataDir() + " ...");
      stack = DevStack.start(options);
    } catch (Exception e) {
      System.err.println("Error: " + (e.getMessage() == null ? e.toString() : e.getMessage()));
      System.exit(1);
      return;
    }
    CountDownLatch stopped = new CountDownLatch(1);
    Runtime.getRuntime()
        .addShutdownHook(
            new Thread(
                () -> {
                  out.println("Stopping the Stagecraft dev stack ...");
                  stack.close();
                  out.println("Dev stack stopped.");
                  stopped.countDown();
                },
                "devstack-shutdown"));
    out.print(stack.summary());
    out.println();
    out.println("Press Ctrl-C to stop (or run `./stagecraft down`).");
    stopped.await();
  }

  static DevStackOptions parse(String[] args, Map<String, String> env, PrintStream out) {
    Path dataDir = Path.of(".stagecraft");
    Path repo = null;
    boolean anyPorts = false;
    for (int i = 0; i < args.length; i++) {
      String a = args[i];
      String value = null;
      int eq = a.indexOf('=');
      String name = eq > 0 ? a.substring(0, eq) : a;
      if (eq > 0) {
        value = a.substring(eq + 1);
      }
      switch (name) {
        case "--data-dir", "-data-dir" -> {
          if (value == null) {
            value = next(args, ++i, name);
          }
          dataDir = Path.of(value);
        }
        case "--repo", "-repo" -> {
          if (value == null) {
            value = next(args, ++i, name);
          }
          repo = Path.of(value);
        }
        case "--any-ports" -> anyPorts = true;
        default -> throw new IllegalArgumentException("unknown option " + a);
      }
    }
    if (repo == null) {
      repo =
          env.containsKey("STAGECRAFT_REPO")
              ? Path.of(env.get("STAGECRAFT_REPO"))
              : repoFromCodeLocation();
    }
    DevStackOptions.ExternalDatabase db = null;
    String dbUrl = env.get("STAGECRAFT_DB_URL");
    if (dbUrl != null && !dbUrl.isBlank()) {
      db =
          new DevStackOptions.ExternalDatabase(
              dbUrl,
              env.getOrDefault("STAGECRAFT_DB_USER", "postgres"),
              env.getOrDefault("STAGECRAFT_DB_PASSWORD", ""));
    }
    Path home = DevStackLayout.stagecraftHome(env);
    Duration timeout =
        Duration.ofSeconds(Long.parseLong(env.getOrDefault("STAGECRAFT_HEALTH_TIMEOUT", "120")));
    return new DevStackOptions(
        dataDir.toAbsolutePath().normalize(),
        repo.toAbsolutePath().normalize(),
        home.toAbsolutePath().normalize(),
        anyPorts ? DevStackOptions.anyPorts() : DevStackOptions.defaultPorts(),
        anyPorts ? 0 : 9092,
        anyPorts ? 0 : 5432,
        db,
        DevStackOptions.currentJava(),
        timeout,
        out);
  }

  private static String next(String[] args, int i, String option) {
    if (i >= args.length) {
      throw new IllegalArgumentException(option + " needs a value");
    }
    return args[i];
  }

  /**
   * The repository root: this class lives in {@code <repo>/devstack/target/devstack-app.jar} (or
   * {@code <repo>/devstack/target/classes} when run from the build).
   */
  static Path repoFromCodeLocation() {
    try {
      Path location =
          Path.of(DevStackMain.class.getProtectionDomain().getCodeSource().getLocation().toURI());
      Path repo = location.getParent().getParent().getParent();
      if (!Files.isDirectory(repo.resolve("devstack"))) {
        throw new IllegalArgumentException(
            "cannot find the repository from " + location + "; pass --repo DIR");
      }
      return repo;
    } catch (URISyntaxException | NullPointerException e) {
      throw new IllegalArgumentException("cannot find the repository; pass --repo DIR", e);
    }
  }
}
