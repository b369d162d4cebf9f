package dev.stagecraft.planner.service.run.driver;

import dev.stagecraft.planner.service.run.lifecycle.Decision;
import dev.stagecraft.planner.service.run.lifecycle.RunCommand;
import dev.stagecraft.planner.service.run.lifecycle.RunDecider;
import dev.stagecraft.planner.service.run.lifecycle.RunEffect;
import dev.stagecraft.planner.service.run.lifecycle.RunEvent;
import dev.stagecraft.planner.service.run.lifecycle.RunSettings;
import dev.stagecraft.planner.service.run.lifecycle.RunState;
import dev.stagecraft.platform.logging.RunLogContext;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.BlockingDeque;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.LinkedBlockingDeque;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Drives one run: a mailbox of {@link RunCommand}s drained by one virtual thread, which decides
 * each command with the {@link RunDecider}, applies its events to the run's state and hands its
 * effects to the {@link EffectHandler}, one command at a time, in the order the commands were
 * enqueued.
 *
 * <p>Concurrency model: any thread (Kafka listeners, HTTP, timers, the handler's own threads) only
 * {@link #enqueue}s; only the run's thread decides, changes the state and calls the handler. The
 * state is published after each command ({@link #state}, read-only for others). What a handler
 * answers while it carries out an effect on the run's thread (an admission slot free at once, the
 * run opened, the outputs recorded), and a handler failure as {@link RunCommand.EffectFailed}, is
 * decided with the command that asked for it, before the command's answer completes and before
 * anything enqueued meanwhile; what it answers later (from its own threads) is enqueued. Once the
 * run is terminal and its mailbox is empty the thread ends; a command enqueued after that is
 * decided on the caller's thread against the final state, which never changes again (it is refused;
 * a lock granted late is still released by the handler).
 */
public final class RunDriver implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(RunDriver.class);

  private record Entry(RunCommand command, CompletableFuture<Decision> answer) {}

  /**
   * Learns what each decision changed, on the run's thread, after the events are applied and before
   * the effects are carried out (the run's journal and read model follow the events).
   */
  @FunctionalInterface
  public interface Listener {
    void decided(List<RunEvent> events, RunState before, RunState after);
  }

  private final RunDecider decider;
  private final EffectHandler handler;
  private final Listener listener;
  private final RunTracing tracing;
  private final BlockingDeque<Entry> mailbox = new LinkedBlockingDeque<>();
  private final ReentrantLock stopping = new ReentrantLock();
  private final CompletableFuture<RunState> ended = new CompletableFuture<>();
  private final Thread thread;
  private volatile RunState state;
  private boolean stopped; // guarded by stopping

  private RunDriver(
      RunState initial,
      RunDecider decider,
      EffectHandler handler,
      Listener listener,
      RunTracing tracing) {
    this.tracing = tracing;
    this.state = initial;
    this.decider = decider;
    this.handler = handler;
    this.listener = listener;
    this.thread =
        Thread.ofVirtual().name("run-" + initial.runId()).unstarted(tracing.carry(this::drain));
  }

  /** Starts the driver of the run in {@code initial}; its first command is usually a start. */
  public static RunDriver start(RunState initial, RunDecider decider, EffectHandler handler) {
    return start(initial, decider, handler, (events, before, after) -> {});
  }

  /** Like {@link #start(RunState, RunDecider, EffectHandler)}, telling {@code listener}. */
  public static RunDriver start(
      RunState initial, RunDecider decider, EffectHandler handler, Listener listener) {
    return start(initial, decider, handler, listener, RunTracing.NONE);
  }

  /** Like {@link #start(RunState, RunDecider, EffectHandler, Listener)}, marking its trace. */
  public static RunDriver start(
      RunState initial,
      RunDecider decider,
      EffectHandler handler,
      Listener listener,
      RunTracing tracing) {
    RunDriver driver = new RunDriver(initial, decider, handler, listener, tracing);
    driver.thread.start();
    return driver;
  }

  /**
   * Enqueues {@code command}; the answer completes with its decision once its events are applied
   * and its effects handed over (an approval's caller learns whether it was refused).
   */
  public CompletableFuture<Decision> enqueue(RunCommand command) {
    CompletableFuture<Decision> answer = new CompletableFuture<>();
    stopping.lock();
    try {
      if (!stopped) {
        mailbox.addLast(new Entry(command, answer));
        return answer;
      }
    } finally {
      stopping.unlock();
    }
    // ended: the state never changes again, so deciding here races with nothing
    answer.complete(process(command));
    return answer;
  }

  /** The run's state after the last command decided. */
  public RunState state() {
    return state;
  }

  /** Completes with the terminal state once the run ended and the driver stopped. */
  public CompletableFuture<RunState> ended() {
    return ended;
  }

  /** Whether the caller is the run's own thread (which must not wait for the run's answers). */
  public boolean onRunThread() {
    return Thread.currentThread() == thread;
  }

  public boolean isRunning() {
    return thread.isAlive();
  }

  private void drain() {
    RunSettings settings = state.settings();
    // what the run's thread logs names the run (JSON logs; the thread is the run's alone)
    try (RunLogContext logContext =
            RunLogContext.open(settings.tenant(), settings.workspace(), state.runId(), null);
        RunTracing.Mark traced =
            tracing.enter(settings.tenant(), settings.workspace(), state.runId())) {
      logContext.withCurrentTrace(); // the run's root, current now
      while (true) {
        Entry next = nextOrStop();
        if (next == null) {
          ended.complete(state);
          return;
        }
        try {
          next.answer().complete(process(next.command()));
        } catch (RuntimeException e) {
          LOG.error("run {}: deciding {} failed", state.runId(), next.command(), e);
          next.answer().completeExceptionally(e);
        }
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      ended.completeExceptionally(e);
    }
  }

  /** The next command; null (and stopped) once the run is terminal and nothing is queued. */
  private Entry nextOrStop() throws InterruptedException {
    if (state.isTerminal()) {
      stopping.lock();
      try {
        if (mailbox.isEmpty()) {
          stopped = true;
          return null;
        }
      } finally {
        stopping.unlock();
      }
    }
    return mailbox.takeFirst();
  }

  private Decision process(RunCommand command) {
    Decision decision = decider.decide(command, state);
    RunState before = state;
    RunState next = before;
    for (RunEvent event : decision.events()) {
      next = RunDecider.apply(next, event);
    }
    state = next;
    if (!decision.events().isEmpty()) {
      listener.decided(decision.events(), before, next);
    }
    List<RunCommand> answered = new ArrayList<>();
    AtomicBoolean handling = new AtomicBoolean(true);
    Consumer<RunCommand> reply =
        c -> {
          if (handling.get() && onRunThread()) {
            answered.add(c);
          } else {
            enqueue(c); // later, or from another thread: in turn
          }
        };
    for (RunEffect effect : decision.effects()) {
      try (RunTracing.Mark marked = tracing.effect(effect, next)) {
        handler.handle(effect, next, reply);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new IllegalStateException("interrupted while handling " + effect, e);
      } catch (Exception e) {
        LOG.warn("run {}: {} failed: {}", next.runId(), effect, e.toString());
        answered.add(new RunCommand.EffectFailed(effect, String.valueOf(e.getMessage())));
      }
    }
    // what the effects answered at once (or their failures) is decided with the command that
    // asked for them, before anything enqueued meanwhile; later answers are enqueued
    handling.set(false);
    for (RunCommand c : answered) {
      process(c);
    }
    return decision;
  }

  /** Stops the driver's thread without deciding what is still queued (shutdown). */
  @Override
  public void close() {
    thread.interrupt();
  }
}
