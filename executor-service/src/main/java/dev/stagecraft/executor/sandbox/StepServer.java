package dev.stagecraft.executor.sandbox;

import dev.stagecraft.executor.step.ProcessLauncher;
import java.io.BufferedReader;
import java.io.File;
import java.io.FileInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The shell that runs an action's steps inside its sandbox (docs/adr/0060, "One sandbox per
 * action"). The namespaces, the uid drop and the limits are set up once, when the server starts; a
 * step then costs a fork and the command's own exec, as it would without a sandbox.
 *
 * <p>Protocol: the server reads a step number per line on its standard input, runs {@code
 * /run/step/step.sh} (written by the executor) in a subshell whose output goes to the FIFOs {@code
 * /run/step/out} and {@code /run/step/err}, waits for it, kills whatever the step left running
 * ({@code kill -KILL -1}: every process of the sandbox's pid namespace but the server and
 * bubblewrap's init) and answers {@code <number> <exit status>}. A {@code SIGTERM} kills the
 * running step the same way. The executor reads the FIFOs; it holds a write end of each until the
 * step's answer, so that a reader sees end-of-file only once the step and everything it started are
 * gone.
 *
 * <p>A step runs as the same uid as the server: it can kill it or answer for itself, which only
 * fails its own action (the next step starts a new server). Nothing here is secret to the step.
 *
 * <p>Concurrency: used by its action's thread; one internal thread reads the answers.
 */
final class StepServer implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(StepServer.class);

  /** Where the control directory is inside the sandbox (read-only). */
  static final String INSIDE = "/run/step";

  /** The server: fixed text, the tenant's commands reach it only as the file it sources. */
  static final String SCRIPT =
      """
      trap 'kill -KILL -1 2>/dev/null' TERM
      echo ready
      while read -r n; do
        ( . /run/step/step.sh ) </dev/null >/run/step/out 2>/run/step/err &
        wait $!
        s=$?
        kill -KILL -1 2>/dev/null
        wait
        echo "$n $s"
      done
      """;

  /** How long the server may take to start (bubblewrap's namespaces, the shell). */
  static final long START_SECONDS = 30;

  /** How long an idle server may take to end at the end of its input before it is killed. */
  private static final long QUIT_MILLIS = 2_000;

  /** The exit status reported for a step whose sandbox ended under it (killed: 128 + 9). */
  static final int SANDBOX_ENDED = 137;

  private final Process chain;
  private final Path control;
  private final Path log;
  private final OutputStream requests;
  private final CompletableFuture<Boolean> ready = new CompletableFuture<>();
  private volatile Step current; // the step running, set before its request is sent
  private volatile boolean ended;
  private ProcessHandle server; // the shell, for SIGTERM; null if it could not be found
  private long steps;

  /** A step the server was asked to run: its write ends and its exit status to come. */
  record Step(
      long number,
      List<AutoCloseable> writeEnds,
      List<InputStream> readers,
      CompletableFuture<Integer> exit) {
    /** The step and all it started are gone: its readers may see end-of-file now. */
    void end(int status) {
      closeAll(writeEnds);
      exit.complete(status);
    }
  }

  private StepServer(Process chain, Path control, Path log) {
    this.chain = chain;
    this.control = control;
    this.log = log;
    this.requests = chain.getOutputStream();
  }

  /**
   * Starts the server with {@code command} (the sandbox's chain ending in {@code /bin/sh -c
   * SCRIPT}) and waits until it is ready.
   *
   * @param control the control directory on the host (bound at {@link #INSIDE})
   * @param log where the chain's own errors go (bubblewrap's), read into the exception
   * @throws IOException when it did not start; the message holds what the chain printed
   */
  static StepServer start(List<String> command, Path control, Path log) throws IOException {
    // started in / with nothing but PATH: bubblewrap's init (pid 1 in the sandbox, whose
    // environment the command can read) holds nothing of the executor's, not even its directory
    ProcessBuilder builder =
        new ProcessBuilder(command)
            .directory(new File("/"))
            .redirectError(ProcessBuilder.Redirect.appendTo(log.toFile()));
    builder.environment().clear();
    builder.environment().put("PATH", "/usr/bin:/bin");
    // from the launcher thread: bubblewrap's --die-with-parent follows the thread that started it
    StepServer s = new StepServer(ProcessLauncher.start(builder), control, log);
    Thread.ofPlatform().daemon().name("sandbox-answers-" + s.chain.pid()).start(s::readAnswers);
    try {
      if (!s.ready.get(START_SECONDS, TimeUnit.SECONDS)) {
        s.close();
        throw new IOException("the sandbox did not start" + s.printed());
      }
    } catch (TimeoutException | ExecutionException e) {
      s.close();
      throw new IOException("the sandbox did not start within " + START_SECONDS + " s", e);
    } catch (InterruptedException e) {
      s.close();
      Thread.currentThread().interrupt();
      throw new IOException("interrupted while starting the sandbox", e);
    }
    s.server = s.findServer();
    return s;
  }

  /** bubblewrap (the chain) → its init → the shell. */
  private ProcessHandle findServer() {
    Optional<ProcessHandle> init = chain.toHandle().children().findFirst();
    return init.flatMap(i -> i.children().findFirst()).orElse(null);
  }

  boolean alive() {
    return !ended && chain.isAlive();
  }

  /**
   * Starts a step: writes its script, opens the output FIFOs (holding a write end of each) and asks
   * the server to run it.
   *
   * @throws IOException when the server is gone or the files could not be written
   */
  SandboxedStep run(String script) throws IOException {
    Path file = control.resolve("step.sh");
    Files.writeString(file, script, StandardCharsets.UTF_8);
    List<AutoCloseable> holders = new ArrayList<>();
    List<InputStream> readers = new ArrayList<>();
    try {
      for (String name : List.of("out", "err")) {
        Path fifo = control.resolve(name);
        // read-write opens of a FIFO never block; with a writer held, the read-only open neither
        holders.add(FileChannel.open(fifo, StandardOpenOption.READ, StandardOpenOption.WRITE));
        readers.add(new FileInputStream(fifo.toFile()));
      }
      Step step = new Step(++steps, holders, readers, new CompletableFuture<>());
      Step previous = current;
      if (previous != null) {
        closeAll(previous.readers()); // read to the end by now, or left unread
      }
      current = step;
      if (ended) {
        step.end(SANDBOX_ENDED);
      }
      requests.write((step.number() + "\n").getBytes(StandardCharsets.US_ASCII));
      requests.flush();
      return new SandboxedStep(this, step.exit(), readers.get(0), readers.get(1));
    } catch (IOException e) {
      closeAll(holders);
      closeAll(readers);
      throw new IOException("the sandbox did not take the step: " + e.getMessage(), e);
    }
  }

  /** Kills the running step (SIGTERM to the server, which kills every process of the step). */
  void killStep() {
    if (server == null || !server.destroy()) {
      close();
    }
  }

  /** Ends the server and everything in its sandbox. */
  @Override
  public void close() {
    ended = true;
    try {
      requests.close();
    } catch (IOException e) {
      // the server is gone already
    }
    try {
      // between steps the server ends at the end of its input, each process reaped by its parent;
      // during a step, or when it does not end, bubblewrap dies with all of the sandbox
      Step step = current;
      boolean idle = step == null || step.exit().isDone();
      if (!idle || !chain.waitFor(QUIT_MILLIS, TimeUnit.MILLISECONDS)) {
        chain.destroyForcibly();
      }
      if (!chain.waitFor(10, TimeUnit.SECONDS)) {
        LOG.warn("the sandbox chain {} did not end within 10 s of SIGKILL", chain.pid());
      }
    } catch (InterruptedException e) {
      chain.destroyForcibly();
      Thread.currentThread().interrupt();
    }
    Step step = current;
    if (step != null) {
      step.end(SANDBOX_ENDED);
      closeAll(step.readers()); // no descriptor stays open in the file system being removed
    }
  }

  /**
   * Reads the server's answers until it ends: "ready", then one line per step; ends the step
   * answered for (an answer for another number is not the server's: a step wrote it, ignored).
   */
  private void readAnswers() {
    try (BufferedReader in =
        new BufferedReader(
            new InputStreamReader(chain.getInputStream(), StandardCharsets.US_ASCII))) {
      for (String line = in.readLine(); line != null; line = in.readLine()) {
        if (line.equals("ready")) {
          ready.complete(true);
          continue;
        }
        String[] parts = line.split(" ", 2);
        Step step = current;
        if (step != null && parts.length == 2 && parts[0].equals(Long.toString(step.number()))) {
          try {
            step.end(Integer.parseInt(parts[1]));
          } catch (NumberFormatException e) {
            // not the server's answer
          }
        }
      }
    } catch (IOException e) {
      // the chain is gone
    } finally {
      ended = true;
      ready.complete(false);
      Step step = current;
      if (step != null && !step.exit().isDone()) {
        LOG.warn(
            "the sandbox ended during step {} (killed, or out of memory){}",
            step.number(),
            printed());
        step.end(SANDBOX_ENDED);
      }
    }
  }

  /** What the chain printed to its error log (bubblewrap's messages), as ": text" or "". */
  private String printed() {
    try {
      String text = Files.readString(log, StandardCharsets.UTF_8).strip();
      if (text.length() > 2000) {
        text = text.substring(text.length() - 2000);
      }
      return text.isEmpty() ? "" : ": " + text;
    } catch (IOException e) {
      return "";
    }
  }

  static void closeAll(List<? extends AutoCloseable> all) {
    for (AutoCloseable c : all) {
      try {
        c.close();
      } catch (Exception e) {
        // closing what is already gone
      }
    }
  }
}
