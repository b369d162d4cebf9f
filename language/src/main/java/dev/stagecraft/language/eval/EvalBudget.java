package dev.stagecraft.language.eval;

import dev.stagecraft.language.diag.SourceRange;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.Optional;
import java.util.UUID;
import java.util.function.LongSupplier;
import java.util.function.Supplier;

/**
 * What evaluating a tenant's configuration may spend, so that no input can pin a thread or exhaust
 * memory (docs/planning.md "Budgets", ADR 0061): a deadline, the length of one string, and the
 * characters and collection elements built in total. A plan shares one budget across every
 * expression it evaluates ({@link EvalContext#budget()}); an evaluation without one gets a budget
 * of its own with the {@link Limits#DEFAULT default limits}.
 *
 * <p>A limit that is exceeded throws {@link Exceeded}, which no {@code try()} or {@code can()}
 * catches: {@link Evaluator} turns it into a diagnostic at the expression where it was hit. Once
 * exceeded, the budget stays spent: every later evaluation with it stops at its first step.
 *
 * <p>Not thread-safe: one thread evaluates with a budget at a time (a plan is evaluated on one
 * thread).
 */
public final class EvalBudget {
  /** How often (in evaluation steps) the clock is read. */
  private static final int STEPS_PER_CLOCK_READ = 1024;

  /**
   * The limits of one budget.
   *
   * @param maxStringLength the most characters one string built by a template or function may have
   * @param maxCharsBuilt the most characters all strings built with the budget may have together
   * @param maxElementsBuilt the most elements all collections built with the budget may have
   *     together (tuples, objects, {@code for} expressions, splats, function results)
   * @param timeLimit how long evaluation with the budget may take
   */
  public record Limits(
      int maxStringLength, long maxCharsBuilt, long maxElementsBuilt, Duration timeLimit) {

    /** Limits a real configuration never meets (docs/planning.md). */
    public static final Limits DEFAULT =
        new Limits(16 << 20, 64L << 20, 4_000_000L, Duration.ofSeconds(60));

    public Limits {
      if (maxStringLength < 1 || maxCharsBuilt < 1 || maxElementsBuilt < 1) {
        throw new IllegalArgumentException("evaluation limits must be positive");
      }
      if (timeLimit == null || timeLimit.isNegative() || timeLimit.isZero()) {
        throw new IllegalArgumentException("the evaluation time limit must be positive");
      }
    }

    /** The same limits with another time limit. */
    public Limits withTimeLimit(Duration limit) {
      return new Limits(maxStringLength, maxCharsBuilt, maxElementsBuilt, limit);
    }
  }

  /**
   * A limit was exceeded. {@code summary} and {@code detail} name the limit; the range is where it
   * was hit (set by the evaluator when the thrower did not know it).
   */
  public static final class Exceeded extends RuntimeException {
    private static final long serialVersionUID = 1L;
    private final String summary;
    private final transient SourceRange range;

    Exceeded(String summary, String detail, SourceRange range) {
      super(detail, null, false, false);
      this.summary = summary;
      this.range = range;
    }

    public String summary() {
      return summary;
    }

    public String detail() {
      return getMessage();
    }

    /** Where the limit was hit, or null when not known. */
    public SourceRange range() {
      return range;
    }

    /** This error at {@code where}, unless it knows its place already. */
    Exceeded at(SourceRange where) {
      return range != null || where == null ? this : new Exceeded(summary, detail(), where);
    }
  }

  private final Limits limits;
  private final LongSupplier nanoTime;
  private final long deadline;
  private int stepsToClockRead = STEPS_PER_CLOCK_READ;
  private long charsBuilt;
  private long elementsBuilt;
  private Exceeded spent;

  private EvalBudget(Limits limits, LongSupplier nanoTime) {
    this.limits = limits;
    this.nanoTime = nanoTime;
    this.deadline = nanoTime.getAsLong() + limits.timeLimit().toNanos();
  }

  /** A budget whose time starts now. */
  public static EvalBudget start(Limits limits) {
    return start(limits, System::nanoTime);
  }

  /**
   * A budget whose time starts now on {@code nanoTime} (a monotonic clock in nanoseconds, as {@link
   * System#nanoTime()}).
   */
  public static EvalBudget start(Limits limits, LongSupplier nanoTime) {
    return new EvalBudget(limits, nanoTime);
  }

  /** The budget of {@code ctx}, or a new one with the default limits when it has none. */
  public static EvalBudget of(EvalContext ctx) {
    EvalBudget b = ctx.budget();
    return b != null ? b : start(Limits.DEFAULT);
  }

  public Limits limits() {
    return limits;
  }

  /** The error that spent this budget, if one did. */
  public Optional<Exceeded> spent() {
    return Optional.ofNullable(spent);
  }

  /** One evaluation step at {@code where}: stops when the budget is spent or its time is up. */
  void step(SourceRange where) {
    if (spent != null) {
      throw spent.at(where);
    }
    if (--stepsToClockRead > 0) {
      return;
    }
    stepsToClockRead = STEPS_PER_CLOCK_READ;
    checkDeadline(where);
  }

  /** Stops when the time is up (for long loops inside one function). */
  public void checkDeadline(SourceRange where) {
    if (nanoTime.getAsLong() - deadline > 0) {
      throw spend(
          new Exceeded(
              "Evaluation deadline exceeded",
              "Evaluating the configuration took longer than the limit of "
                  + seconds(limits.timeLimit())
                  + " per plan, and was stopped here. Look for for expressions or functions over"
                  + " large collections (nested for expressions over range(), for example).",
              where));
    }
  }

  /**
   * Counts {@code count} collection elements built by {@code what}.
   *
   * @throws Exceeded when all elements built would exceed {@link Limits#maxElementsBuilt}
   */
  public void chargeElements(long count, String what) {
    chargeElements(count, what, null);
  }

  /** As {@link #chargeElements(long, String)}, hit at {@code where}. */
  void chargeElements(long count, String what, SourceRange where) {
    elementsBuilt += count;
    if (elementsBuilt > limits.maxElementsBuilt()) {
      throw spend(
          new Exceeded(
              "Too many values built",
              "Evaluating the configuration built more than "
                  + limits.maxElementsBuilt()
                  + " collection elements in all, the limit per plan; "
                  + what
                  + " went over it. Build smaller collections (a for expression over a large range"
                  + " or setproduct() of large sets, for example).",
              where));
    }
  }

  /**
   * Counts {@code v}, built by {@code what}: a collection's elements (its own, not those of nested
   * collections, which were counted when they were built), or a string's characters.
   *
   * @return {@code v}
   * @throws Exceeded as {@link #chargeElements} and {@link #chargeString}
   */
  public Value charge(Value v, String what) {
    return charge(v, what, null);
  }

  /** As {@link #charge(Value, String)}, built at {@code where}. */
  Value charge(Value v, String what, SourceRange where) {
    try {
      switch (v) {
        case Value.ListValue l -> chargeElements(l.elements().size(), what, where);
        case Value.ObjectValue o -> chargeElements(o.attributes().size(), what, where);
        case Value.StringValue s -> chargeString(s.value().length(), what);
        default -> {}
      }
    } catch (Exceeded e) {
      throw e.at(where);
    }
    return v;
  }

  /**
   * Checks the length a string built by {@code what} is about to have, before it is built.
   *
   * @throws Exceeded when it is over {@link Limits#maxStringLength}
   */
  public void checkLength(long length, String what) {
    if (length > limits.maxStringLength()) {
      throw new Exceeded(
          "String too long",
          "The string built by "
              + what
              + " would be "
              + length
              + " characters long, above the limit of "
              + characters(limits.maxStringLength())
              + " per string.",
          null);
    }
  }

  /**
   * Checks, before {@code what} encodes {@code v} as text, that the text would not be too long: the
   * strings, numbers and elements of {@code v} alone must fit (shared values count each time they
   * appear, as they would be written).
   *
   * @throws Exceeded as {@link #checkLength}
   */
  public void checkEncodable(Value v, String what) {
    checkLength(encodedLength(v, limits.maxStringLength() + 1L), what);
  }

  /** A lower bound of the length of {@code v} written as text, counted up to {@code upTo}. */
  private static long encodedLength(Value v, long upTo) {
    return switch (v) {
      case Value.StringValue s -> s.value().length() + 2L;
      case Value.NumberValue n -> n.value().precision() + Math.abs((long) n.value().scale());
      case Value.ListValue l -> {
        long total = 2;
        for (Value e : l.elements()) {
          total += 1 + encodedLength(e, upTo - total);
          if (total >= upTo) {
            break;
          }
        }
        yield total;
      }
      case Value.ObjectValue o -> {
        long total = 2;
        for (var e : o.attributes().entrySet()) {
          total += e.getKey().length() + 4 + encodedLength(e.getValue(), upTo - total);
          if (total >= upTo) {
            break;
          }
        }
        yield total;
      }
      default -> 4;
    };
  }

  /**
   * Checks and counts a string of {@code length} characters built by {@code what}.
   *
   * @throws Exceeded when it is too long, or when all strings built would exceed {@link
   *     Limits#maxCharsBuilt}
   */
  void chargeString(long length, String what) {
    checkLength(length, what);
    countChars(length, what);
  }

  /**
   * Appends {@code text} to {@code sb}, a string {@code what} is building, unless that makes it too
   * long. The finished string is counted by {@link #charge}.
   *
   * @throws Exceeded as {@link #checkLength}, before appending
   */
  public void append(StringBuilder sb, CharSequence text, String what) {
    checkLength((long) sb.length() + text.length(), what);
    sb.append(text);
  }

  private void countChars(long count, String what) {
    charsBuilt += count;
    if (charsBuilt > limits.maxCharsBuilt()) {
      throw spend(
          new Exceeded(
              "Too much text built",
              "Evaluating the configuration built more than "
                  + characters(limits.maxCharsBuilt())
                  + " of strings in all, the limit per plan; "
                  + what
                  + " went over it.",
              null));
    }
  }

  private Exceeded spend(Exceeded e) {
    spent = e;
    return e;
  }

  private static String seconds(Duration d) {
    return d.toMillis() % 1000 == 0 ? d.toSeconds() + " s" : d.toMillis() + " ms";
  }

  private static String characters(long chars) {
    return chars + " characters" + (chars % (1 << 20) == 0 ? " (" + (chars >> 20) + " MiB)" : "");
  }

  /**
   * {@code ctx} with this budget: itself when it carries it, else a view of it that does (the
   * evaluator hands functions a context whose budget is the one it counts against).
   */
  EvalContext bind(EvalContext ctx) {
    return ctx.budget() == this ? ctx : new Bound(ctx, this);
  }

  /** A context with another budget; everything else is the wrapped context's. */
  private record Bound(EvalContext inner, EvalBudget budget) implements EvalContext {
    @Override
    public Optional<Value> resolve(String root) {
      return inner.resolve(root);
    }

    @Override
    public Path baseDirectory() {
      return inner.baseDirectory();
    }

    @Override
    public boolean fileAccessConfined() {
      return inner.fileAccessConfined();
    }

    @Override
    public Path resolvePath(String path) {
      return inner.resolvePath(path);
    }

    @Override
    public Clock clock() {
      return inner.clock();
    }

    @Override
    public Supplier<UUID> uuids() {
      return inner.uuids();
    }

    @Override
    public boolean impureFunctionsUnknown() {
      return inner.impureFunctionsUnknown();
    }

    @Override
    public Value impureResult(String function, SourceRange site, Supplier<Value> call) {
      return inner.impureResult(function, site, call);
    }

    @Override
    public Instant planTimestamp() {
      return inner.planTimestamp();
    }
  }
}
