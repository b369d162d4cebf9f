package dev.stagecraft.language.eval;

import java.math.BigDecimal;
import java.math.BigInteger;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.TreeMap;
import java.util.stream.Collectors;

/**
 * A value of the Terraform language. Immutable. Every value carries a "sensitive" mark (on this
 * value itself; nested values carry their own), which is either a plain one (a sensitive variable,
 * {@code sensitive()}) or the state's ({@link #isFromState()}: the value was read sensitive from
 * the workspace's state, and {@code nonsensitive()} cannot remove it). Operations on a sensitive
 * operand return a result marked as strongly ({@link #markLike}), so callers can redact with {@link
 * #render()}. {@link UnknownValue} stands for a value only known after apply; operations on it
 * yield unknown.
 *
 * <p>Lists and tuples are both {@link ListValue}; maps and objects are both {@link ObjectValue}
 * with keys in lexical order, as Terraform iterates them.
 */
public sealed interface Value
    permits Value.StringValue,
        Value.NumberValue,
        Value.BoolValue,
        Value.ListValue,
        Value.ObjectValue,
        Value.NullValue,
        Value.UnknownValue {

  String UNKNOWN_TEXT = "(known after apply)";
  String SENSITIVE_TEXT = "(sensitive value)";

  NullValue NULL = new NullValue(false);
  BoolValue TRUE = new BoolValue(true, false);
  BoolValue FALSE = new BoolValue(false, false);

  /** True if this value itself is marked sensitive. */
  boolean isSensitive();

  /**
   * True if this value itself is marked sensitive by the workspace's state it was read from (a
   * sealed value, or one at a path the state lists in {@code sensitive_attributes}), or computed
   * from such a value. Such a mark is a sensitive mark that {@code nonsensitive()} cannot remove:
   * Stagecraft never shows a value the state holds sensitive in clear.
   */
  boolean isFromState();

  /** A copy of this value marked sensitive if {@code sensitive} is true (never removes a mark). */
  Value mark(boolean sensitive);

  /** A copy of this value marked sensitive by the state ({@link #isFromState()}). */
  Value markFromState();

  /** A copy of this value without its own marks (nested marks stay). */
  Value unmark();

  /**
   * This value marked as strongly as the most strongly marked of {@code sources} itself is (their
   * own marks, not nested ones): how an operation's result inherits its operands' marks.
   */
  default Value markLike(Value... sources) {
    Value out = this;
    for (Value source : sources) {
      out = source.isFromState() ? out.markFromState() : out.mark(source.isSensitive());
    }
    return out;
  }

  /**
   * This value marked as strongly as the most strongly marked value anywhere inside {@code
   * sources}: the result of a function computed from unmarked copies of its arguments.
   */
  static Value markedLikeAnyOf(Value result, List<Value> sources) {
    if (sources.stream().noneMatch(Value::containsSensitive)) {
      return result; // the common case: one scan
    }
    return sources.stream().anyMatch(Value::containsFromState)
        ? result.markFromState()
        : result.mark(true);
  }

  /**
   * A copy of this value with the value at {@code path} marked sensitive: object keys are strings,
   * list indexes numbers. A path that leads nowhere in this value changes nothing.
   */
  default Value markedAt(List<?> path) {
    return markedAt(this, path, 0, false);
  }

  /** As {@link #markedAt}, with the state's mark ({@link #isFromState()}). */
  default Value markedFromStateAt(List<?> path) {
    return markedAt(this, path, 0, true);
  }

  private static Value markedAt(Value value, List<?> path, int from, boolean fromState) {
    if (from == path.size()) {
      return fromState ? value.markFromState() : value.mark(true);
    }
    Object step = path.get(from);
    if (value instanceof ObjectValue o
        && step instanceof String key
        && o.attributes().containsKey(key)) {
      Map<String, Value> copy = new LinkedHashMap<>(o.attributes());
      copy.put(key, markedAt(o.attributes().get(key), path, from + 1, fromState));
      return new ObjectValue(copy, o.sensitive(), o.fromState());
    }
    if (value instanceof ListValue l
        && step instanceof Number n
        && n.intValue() >= 0
        && n.intValue() < l.elements().size()) {
      List<Value> copy = new ArrayList<>(l.elements());
      copy.set(n.intValue(), markedAt(copy.get(n.intValue()), path, from + 1, fromState));
      return new ListValue(copy, l.sensitive(), l.fromState());
    }
    return value;
  }

  /**
   * {@code target} marked wherever this value is marked, with the same kind of mark, at the same
   * paths (object keys, list indexes; a path that leads nowhere in {@code target} changes nothing):
   * how plain data that stands for this value (the attributes an applied instance reports) gets its
   * marks back. Marks nested inside a marked value are not copied; the outer mark covers them.
   */
  default Value copyMarksTo(Value target) {
    return copyMarks(this, new ArrayList<>(), target);
  }

  private static Value copyMarks(Value from, List<Object> path, Value out) {
    if (from.isSensitive()) {
      return from.isFromState() ? out.markedFromStateAt(path) : out.markedAt(path);
    }
    Value marked = out;
    switch (from) {
      case ObjectValue o -> {
        for (Map.Entry<String, Value> e : o.attributes().entrySet()) {
          path.add(e.getKey());
          marked = copyMarks(e.getValue(), path, marked);
          path.remove(path.size() - 1);
        }
      }
      case ListValue l -> {
        for (int i = 0; i < l.elements().size(); i++) {
          path.add(i);
          marked = copyMarks(l.elements().get(i), path, marked);
          path.remove(path.size() - 1);
        }
      }
      default -> {}
    }
    return marked;
  }

  /** "string", "number", "bool", "list", "object", "null" or "unknown" (for messages). */
  String typeName();

  default boolean isKnown() {
    return !(this instanceof UnknownValue);
  }

  default boolean isNull() {
    return this instanceof NullValue;
  }

  /** True if neither this value nor anything nested in it is unknown. */
  default boolean isWhollyKnown() {
    return switch (this) {
      case UnknownValue u -> false;
      case ListValue l -> l.elements().stream().allMatch(Value::isWhollyKnown);
      case ObjectValue o -> o.attributes().values().stream().allMatch(Value::isWhollyKnown);
      default -> true;
    };
  }

  /** True if this value or anything nested in it is sensitive. */
  default boolean containsSensitive() {
    if (isSensitive()) {
      return true;
    }
    return switch (this) {
      case ListValue l -> l.elements().stream().anyMatch(Value::containsSensitive);
      case ObjectValue o -> o.attributes().values().stream().anyMatch(Value::containsSensitive);
      default -> false;
    };
  }

  /** True if this value or anything nested in it is marked by the state ({@link #isFromState}). */
  default boolean containsFromState() {
    if (isFromState()) {
      return true;
    }
    return switch (this) {
      case ListValue l -> l.elements().stream().anyMatch(Value::containsFromState);
      case ObjectValue o -> o.attributes().values().stream().anyMatch(Value::containsFromState);
      default -> false;
    };
  }

  /** This value with every sensitive mark, nested ones included, removed. */
  default Value unmarkDeep() {
    return switch (this) {
      case ListValue l ->
          new ListValue(l.elements().stream().map(Value::unmarkDeep).toList(), false);
      case ObjectValue o -> {
        Map<String, Value> m = new TreeMap<>();
        o.attributes().forEach((k, v) -> m.put(k, v.unmarkDeep()));
        yield new ObjectValue(m, false);
      }
      default -> unmark();
    };
  }

  /**
   * The string form of a primitive as Terraform converts it (numbers without trailing zeros, bools
   * as true/false); {@code "(known after apply)"} for unknown, {@code "null"} for null, JSON for
   * collections. Sensitive values are NOT redacted here; use {@link #render()} for display.
   */
  default String asString() {
    return switch (this) {
      case StringValue s -> s.value();
      case NumberValue n -> formatNumber(n.value());
      case BoolValue b -> Boolean.toString(b.value());
      case NullValue n -> "null";
      case UnknownValue u -> UNKNOWN_TEXT;
      default -> Json.encode(this);
    };
  }

  /**
   * Plain Java form: String, BigDecimal, Boolean, null, List, Map (sorted). Marks are dropped.
   *
   * @throws IllegalStateException if the value is not wholly known (check {@link #isWhollyKnown()}
   *     first)
   */
  default Object toJava() {
    return switch (this) {
      case StringValue s -> s.value();
      case NumberValue n -> n.value();
      case BoolValue b -> b.value();
      case NullValue n -> null;
      case UnknownValue u ->
          throw new IllegalStateException("value is unknown until apply; check isWhollyKnown()");
      case ListValue l -> {
        List<Object> out = new ArrayList<>();
        for (Value v : l.elements()) {
          out.add(v.toJava());
        }
        yield Collections.unmodifiableList(out);
      }
      case ObjectValue o -> {
        Map<String, Object> out = new TreeMap<>();
        o.attributes().forEach((k, v) -> out.put(k, v.toJava()));
        yield Collections.unmodifiableMap(out);
      }
    };
  }

  /**
   * Human rendering for plans and logs, in HCL-like syntax, with sensitive parts replaced by {@code
   * (sensitive value)} and unknown ones by {@code (known after apply)}.
   */
  default String render() {
    if (isSensitive()) {
      return SENSITIVE_TEXT;
    }
    return switch (this) {
      case StringValue s -> Json.quote(s.value());
      case NumberValue n -> formatNumber(n.value());
      case BoolValue b -> Boolean.toString(b.value());
      case NullValue n -> "null";
      case UnknownValue u -> UNKNOWN_TEXT;
      case ListValue l ->
          l.elements().stream().map(Value::render).collect(Collectors.joining(", ", "[", "]"));
      case ObjectValue o ->
          o.attributes().isEmpty()
              ? "{}"
              : o.attributes().entrySet().stream()
                  .map(e -> e.getKey() + " = " + e.getValue().render())
                  .collect(Collectors.joining(", ", "{ ", " }"));
    };
  }

  // ------------------------------------------------------------------ factories

  static StringValue string(String s) {
    return new StringValue(s, false);
  }

  static NumberValue number(BigDecimal n) {
    return new NumberValue(n, false);
  }

  static NumberValue number(long n) {
    return new NumberValue(BigDecimal.valueOf(n), false);
  }

  static BoolValue bool(boolean b) {
    return b ? TRUE : FALSE;
  }

  static ListValue list(List<Value> elements) {
    return new ListValue(elements, false);
  }

  static ObjectValue object(Map<String, Value> attributes) {
    return new ObjectValue(attributes, false);
  }

  static UnknownValue unknown() {
    return new UnknownValue(false);
  }

  /**
   * Converts plain Java (String, Number, Boolean, null, Map, Iterable, arrays, Value) to a Value.
   *
   * @throws IllegalArgumentException for other types (a programming error)
   */
  static Value of(Object o) {
    return switch (o) {
      case null -> NULL;
      case Value v -> v;
      case String s -> string(s);
      case Boolean b -> bool(b);
      case BigDecimal d -> number(d);
      case BigInteger i -> number(new BigDecimal(i));
      case Double d -> number(BigDecimal.valueOf(d));
      case Float f -> number(new BigDecimal(f.toString()));
      case Number n -> number(BigDecimal.valueOf(n.longValue()));
      case Map<?, ?> m -> {
        Map<String, Value> out = new LinkedHashMap<>();
        m.forEach((k, v) -> out.put(String.valueOf(k), of(v)));
        yield object(out);
      }
      case Iterable<?> it -> {
        List<Value> out = new ArrayList<>();
        it.forEach(x -> out.add(of(x)));
        yield list(out);
      }
      case Object[] arr -> {
        List<Value> out = new ArrayList<>();
        for (Object x : arr) {
          out.add(of(x));
        }
        yield list(out);
      }
      default ->
          throw new IllegalArgumentException(
              "cannot convert " + o.getClass().getName() + " to a language value");
    };
  }

  /**
   * Numbers print as Terraform does: no exponent, no trailing zeros (except a number too long to
   * write out within the string limit of {@link EvalBudget.Limits#DEFAULT}).
   */
  static String formatNumber(BigDecimal n) {
    BigDecimal s = n.stripTrailingZeros();
    if (plainLength(s) > EvalBudget.Limits.DEFAULT.maxStringLength()) {
      // written out, 1e999999999 would be a billion digits: beyond the string limit, an exponent
      return s.toString();
    }
    return s.signum() == 0 ? "0" : s.toPlainString();
  }

  /** About how many characters the plain decimal form of {@code n} has. */
  static long plainLength(BigDecimal n) {
    return (long) n.precision() + Math.abs((long) n.scale()) + 2;
  }

  // ------------------------------------------------------------------ cases

  /**
   * @param sensitive marked sensitive
   * @param fromState marked sensitive by the state it was read from (implies {@code sensitive}):
   *     {@code nonsensitive()} cannot remove that mark
   */
  record StringValue(String value, boolean sensitive, boolean fromState) implements Value {
    public StringValue {
      Objects.requireNonNull(value);
      sensitive |= fromState;
    }

    public StringValue(String value, boolean sensitive) {
      this(value, sensitive, false);
    }

    @Override
    public boolean isSensitive() {
      return sensitive;
    }

    @Override
    public boolean isFromState() {
      return fromState;
    }

    @Override
    public Value mark(boolean s) {
      return s && !sensitive ? new StringValue(value, true) : this;
    }

    @Override
    public Value markFromState() {
      return fromState ? this : new StringValue(value, true, true);
    }

    @Override
    public Value unmark() {
      return sensitive ? new StringValue(value, false) : this;
    }

    @Override
    public String typeName() {
      return "string";
    }
  }

  /** See {@link StringValue} for the marks. */
  record NumberValue(BigDecimal value, boolean sensitive, boolean fromState) implements Value {
    public NumberValue {
      Objects.requireNonNull(value);
      sensitive |= fromState;
    }

    public NumberValue(BigDecimal value, boolean sensitive) {
      this(value, sensitive, false);
    }

    @Override
    public boolean isSensitive() {
      return sensitive;
    }

    @Override
    public boolean isFromState() {
      return fromState;
    }

    @Override
    public Value mark(boolean s) {
      return s && !sensitive ? new NumberValue(value, true) : this;
    }

    @Override
    public Value markFromState() {
      return fromState ? this : new NumberValue(value, true, true);
    }

    @Override
    public Value unmark() {
      return sensitive ? new NumberValue(value, false) : this;
    }

    @Override
    public String typeName() {
      return "number";
    }

    @Override
    public boolean equals(Object o) {
      return o instanceof NumberValue n
          && n.value.compareTo(value) == 0
          && n.sensitive == sensitive
          && n.fromState == fromState;
    }

    @Override
    public int hashCode() {
      return Objects.hash(formatNumber(value), sensitive, fromState);
    }
  }

  /** See {@link StringValue} for the marks. */
  record BoolValue(boolean value, boolean sensitive, boolean fromState) implements Value {
    public BoolValue {
      sensitive |= fromState;
    }

    public BoolValue(boolean value, boolean sensitive) {
      this(value, sensitive, false);
    }

    @Override
    public boolean isSensitive() {
      return sensitive;
    }

    @Override
    public boolean isFromState() {
      return fromState;
    }

    @Override
    public Value mark(boolean s) {
      return s && !sensitive ? new BoolValue(value, true) : this;
    }

    @Override
    public Value markFromState() {
      return fromState ? this : new BoolValue(value, true, true);
    }

    @Override
    public Value unmark() {
      return sensitive ? new BoolValue(value, false) : this;
    }

    @Override
    public String typeName() {
      return "bool";
    }
  }

  /** See {@link StringValue} for the marks. */
  record ListValue(List<Value> elements, boolean sensitive, boolean fromState) implements Value {
    public ListValue {
      elements = List.copyOf(elements);
      sensitive |= fromState;
    }

    public ListValue(List<Value> elements, boolean sensitive) {
      this(elements, sensitive, false);
    }

    @Override
    public boolean isSensitive() {
      return sensitive;
    }

    @Override
    public boolean isFromState() {
      return fromState;
    }

    @Override
    public Value mark(boolean s) {
      return s && !sensitive ? new ListValue(elements, true) : this;
    }

    @Override
    public Value markFromState() {
      return fromState ? this : new ListValue(elements, true, true);
    }

    @Override
    public Value unmark() {
      return sensitive ? new ListValue(elements, false) : this;
    }

    @Override
    public String typeName() {
      return "list";
    }
  }

  /** See {@link StringValue} for the marks. */
  record ObjectValue(Map<String, Value> attributes, boolean sensitive, boolean fromState)
      implements Value {
    public ObjectValue {
      attributes = Collections.unmodifiableMap(new TreeMap<>(attributes));
      sensitive |= fromState;
    }

    public ObjectValue(Map<String, Value> attributes, boolean sensitive) {
      this(attributes, sensitive, false);
    }

    @Override
    public boolean isSensitive() {
      return sensitive;
    }

    @Override
    public boolean isFromState() {
      return fromState;
    }

    @Override
    public Value mark(boolean s) {
      return s && !sensitive ? new ObjectValue(attributes, true) : this;
    }

    @Override
    public Value markFromState() {
      return fromState ? this : new ObjectValue(attributes, true, true);
    }

    @Override
    public Value unmark() {
      return sensitive ? new ObjectValue(attributes, false) : this;
    }

    @Override
    public String typeName() {
      return "object";
    }

    public Value get(String name) {
      return attributes.get(name);
    }
  }

  /** See {@link StringValue} for the marks. */
  record NullValue(boolean sensitive, boolean fromState) implements Value {
    public NullValue {
      sensitive |= fromState;
    }

    public NullValue(boolean sensitive) {
      this(sensitive, false);
    }

    @Override
    public boolean isSensitive() {
      return sensitive;
    }

    @Override
    public boolean isFromState() {
      return fromState;
    }

    @Override
    public Value mark(boolean s) {
      return s && !sensitive ? new NullValue(true) : this;
    }

    @Override
    public Value markFromState() {
      return fromState ? this : new NullValue(true, true);
    }

    @Override
    public Value unmark() {
      return NULL;
    }

    @Override
    public String typeName() {
      return "null";
    }
  }

  /** See {@link StringValue} for the marks. */
  record UnknownValue(boolean sensitive, boolean fromState) implements Value {
    public UnknownValue {
      sensitive |= fromState;
    }

    public UnknownValue(boolean sensitive) {
      this(sensitive, false);
    }

    @Override
    public boolean isSensitive() {
      return sensitive;
    }

    @Override
    public boolean isFromState() {
      return fromState;
    }

    @Override
    public Value mark(boolean s) {
      return s && !sensitive ? new UnknownValue(true) : this;
    }

    @Override
    public Value markFromState() {
      return fromState ? this : new UnknownValue(true, true);
    }

    @Override
    public Value unmark() {
      return sensitive ? new UnknownValue(false) : this;
    }

    @Override
    public String typeName() {
      return "unknown";
    }
  }
}
