package dev.stagecraft.executor.sandbox;

import java.io.InputStream;
import java.io.OutputStream;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.stream.Stream;

/**
 * One step run by an action's {@link StepServer}, seen as a {@link Process}: its output is read
 * from the server's FIFOs, its exit status is the server's answer, and destroying it kills the step
 * and everything it started (not the server). Standard input is at end of file.
 *
 * <p>Concurrency: the output streams are read by reader threads; the rest is used by the action's
 * thread.
 */
final class SandboxedStep extends Process {
  private final StepServer server;
  private final CompletableFuture<Integer> exit;
  private final InputStream out;
  private final InputStream err;

  SandboxedStep(
      StepServer server, CompletableFuture<Integer> exit, InputStream out, InputStream err) {
    this.server = server;
    this.exit = exit;
    this.out = out;
    this.err = err;
  }

  @Override
  public OutputStream getOutputStream() {
    return OutputStream.nullOutputStream();
  }

  @Override
  public InputStream getInputStream() {
    return out;
  }

  @Override
  public InputStream getErrorStream() {
    return err;
  }

  @Override
  public int waitFor() throws InterruptedException {
    try {
      return exit.get();
    } catch (ExecutionException e) {
      throw new IllegalStateException(e.getCause());
    }
  }

  @Override
  public boolean waitFor(long timeout, TimeUnit unit) throws InterruptedException {
    try {
      exit.get(timeout, unit);
      return true;
    } catch (TimeoutException e) {
      return false;
    } catch (ExecutionException e) {
      throw new IllegalStateException(e.getCause());
    }
  }

  @Override
  public int exitValue() {
    if (!exit.isDone()) {
      throw new IllegalThreadStateException("the step has not ended");
    }
    return exit.join();
  }

  @Override
  public boolean isAlive() {
    return !exit.isDone();
  }

  @Override
  public void destroy() {
    if (!exit.isDone()) {
      server.killStep();
    }
  }

  @Override
  public Process destroyForcibly() {
    if (!exit.isDone()) {
      server.close(); // the step did not end on SIGTERM (or the server is stopped): all of it goes
    }
    return this;
  }

  @Override
  public CompletableFuture<Process> onExit() {
    return exit.thenApply(status -> this);
  }

  @Override
  public boolean supportsNormalTermination() {
    return false;
  }

  /** The step's processes live in the sandbox's namespace: {@link #destroy} ends them all. */
  @Override
  public Stream<ProcessHandle> descendants() {
    return Stream.empty();
  }

  @Override
  public Stream<ProcessHandle> children() {
    return Stream.empty();
  }
}
