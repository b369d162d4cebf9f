package dev.stagecraft.devstack;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * How a Stagecraft JVM is started: the options every service process gets from the dev stack, the
 * tests and the benchmarks (the Dockerfiles' {@code ENTRYPOINT}s carry the same {@link
 * #JIT_OPTIONS}), and the command line built from them.
 */
public final class ServiceJvm {
  /**
   * The JIT compiles methods after a tenth of HotSpot's default invocation and loop counts
   * (docs/adr/0048): most of a service's request path runs once or a few times per request, so with
   * the default thresholds it still runs in profiled C1 code after thousands of requests.
   */
  public static final List<String> JIT_OPTIONS = List.of("-XX:CompileThresholdScaling=0.1");

  /** The heap of a service process in the dev stack. */
  public static final String HEAP = "-Xmx256m";

  private ServiceJvm() {}

  /** {@code java -Xmx256m <JIT_OPTIONS> -jar <jar>}. */
  public static List<String> command(String javaCommand, Path jar) {
    List<String> command = new ArrayList<>();
    command.add(javaCommand);
    command.add(HEAP);
    command.addAll(JIT_OPTIONS);
    command.add("-jar");
    command.add(jar.toString());
    return command;
  }
}
