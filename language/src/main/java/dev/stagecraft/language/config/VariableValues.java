package dev.stagecraft.language.config;

import dev.stagecraft.language.diag.Diagnostics;
import dev.stagecraft.language.diag.SourcePos;
import dev.stagecraft.language.diag.SourceRange;
import dev.stagecraft.language.eval.EvalResult;
import dev.stagecraft.language.eval.Evaluator;
import dev.stagecraft.language.eval.SimpleEvalContext;
import dev.stagecraft.language.eval.Value;
import dev.stagecraft.language.syntax.ExpressionResult;
import dev.stagecraft.language.syntax.Parser;
import dev.stagecraft.language.syntax.Traversal;
import dev.stagecraft.language.types.Type;
import dev.stagecraft.language.types.TypeConstraints;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;

/**
 * Resolves the values of a module's input variables as Terraform does before planning: given values
 * (from {@code -var}, var files, the API) or the declared default, converted to the declared type
 * constraint, checked against {@code nullable} and every {@code validation} block, and marked
 * sensitive when the variable is. Stateless and thread-safe.
 *
 * <pre>
 * VariableValues.Resolved r = VariableValues.resolve(config, Map.of("port", Value.string("8080")));
 * if (r.hasErrors()) ...; r.values().get("port")   // number 8080
 * </pre>
 */
public final class VariableValues {
  private VariableValues() {}

  /** The resolved values (every declared variable, even on errors) and the problems found. */
  public record Resolved(Map<String, Value> values, Diagnostics diagnostics) {
    public Resolved {
      values = Collections.unmodifiableMap(new LinkedHashMap<>(values));
    }

    public boolean hasErrors() {
      return diagnostics.hasErrors();
    }

    /** The values as the {@code var} root object for an {@link SimpleEvalContext}. */
    public Value asObject() {
      return Value.object(new TreeMap<>(values));
    }
  }

  /** The declared type of a variable ({@link Type#ANY} when absent or invalid). */
  public static Type typeOf(VariableDecl v) {
    return v.type().map(e -> TypeConstraints.parse(e).type()).orElse(Type.ANY);
  }

  /**
   * Resolves every declared variable.
   *
   * @param given values by variable name; strings are converted like CLI values ({@code "5"} for a
   *     {@code number}); a value for an undeclared variable is a warning
   */
  public static Resolved resolve(Configuration config, Map<String, Value> given) {
    return resolve(config, given, SimpleEvalContext.empty());
  }

  /**
   * Like {@link #resolve(Configuration, Map)}; validation conditions are evaluated in {@code
   * context} (its {@code path.*} and the directory file functions read, as everywhere else in the
   * configuration) with the variable added.
   */
  public static Resolved resolve(
      Configuration config, Map<String, Value> given, SimpleEvalContext context) {
    Diagnostics d = new Diagnostics();
    Map<String, Value> out = new LinkedHashMap<>();
    for (String name : new TreeMap<>(given).keySet()) {
      if (!config.variables().containsKey(name)) {
        d.warning(
            "Value for undeclared variable",
            "A value was given for the variable \""
                + name
                + "\", but the configuration does not declare it. Declare it with variable \""
                + name
                + "\" {} or remove the value.",
            SourceRange.synthetic("variables"));
      }
    }
    for (VariableDecl v : config.variables().values()) {
      out.put(v.name(), resolveOne(v, Optional.ofNullable(given.get(v.name())), context, d));
    }
    return new Resolved(out, d);
  }

  /**
   * Parses a raw {@code -var NAME=VALUE} value as Terraform does: for a variable of primitive type
   * (or none) the text is the string itself; for a collection or structural type it is an
   * expression ({@code ["a","b"]}, {@code {k = "v"}}) that must not refer to anything.
   */
  public static ValueOrError parseCliValue(VariableDecl v, String raw) {
    Type t = typeOf(v);
    if (t instanceof Type.Primitive || v.type().isEmpty()) {
      return new ValueOrError(Value.string(raw), new Diagnostics());
    }
    return parseHclValue(v, raw);
  }

  /**
   * Parses a value given as an HCL expression — a variable file's ({@code terraform.tfvars}, {@code
   * *.auto.tfvars}, {@code -var-file}) — whatever the variable's type: the value keeps its own type
   * ({@code ["a", "b"]} is a tuple, {@code 3} a number), which the type constraint then converts; a
   * variable without one takes it as it is. It must not refer to anything.
   */
  public static ValueOrError parseHclValue(VariableDecl v, String raw) {
    Diagnostics d = new Diagnostics();
    String file = "<value for var." + v.name() + ">";
    ExpressionResult er = Parser.parseExpression(file, raw, SourcePos.START);
    d.addAll(er.diagnostics());
    if (er.expression() == null || d.hasErrors()) {
      return new ValueOrError(Value.NULL, d);
    }
    if (!er.expression().traversals().isEmpty()) {
      d.error(
          "Variables not allowed",
          "The value for var." + v.name() + " may not refer to other values; give a literal value.",
          er.expression().traversals().get(0).range());
      return new ValueOrError(Value.NULL, d);
    }
    EvalResult r = new Evaluator().evaluate(er.expression(), SimpleEvalContext.empty());
    d.addAll(r.diagnostics());
    return new ValueOrError(r.value(), d);
  }

  /**
   * The value of a called module's input variable: {@code given} (the call's argument, evaluated in
   * the caller) or the default, converted to the variable's type and checked by its {@code
   * nullable} and {@code validation} rules, as for a root variable; problems are added to {@code
   * d}.
   */
  public static Value resolveModuleInput(
      VariableDecl v, Optional<Value> given, SimpleEvalContext context, Diagnostics d) {
    return resolveOne(v, given, context, d);
  }

  /** A parsed value and the problems found while parsing it. */
  public record ValueOrError(Value value, Diagnostics diagnostics) {}

  private static Value resolveOne(
      VariableDecl v, Optional<Value> given, SimpleEvalContext context, Diagnostics d) {
    String where = v.range().toString();
    TypeConstraints.Parsed parsedType =
        v.type()
            .map(TypeConstraints::parse)
            .orElse(new TypeConstraints.Parsed(Type.ANY, new Diagnostics()));
    Type type = parsedType.type();
    Value value;
    if (given.isPresent()) {
      value = given.get();
    } else if (v.defaultValue().isPresent()) {
      EvalResult r = new Evaluator().evaluate(v.defaultValue().get(), SimpleEvalContext.empty());
      if (r.hasErrors()) {
        d.addAll(r.diagnostics());
        return Value.unknown().mark(v.sensitive());
      }
      value = r.value();
      TypeConstraints.Conversion c = TypeConstraints.convert(value, type);
      if (!c.ok()) {
        d.error(
            "Invalid default value for variable",
            "The default value of var."
                + v.name()
                + " (declared at "
                + where
                + ") is not of type "
                + type
                + ": "
                + c.error().get()
                + ".",
            v.defaultValue().get().range());
        return Value.unknown().mark(v.sensitive());
      }
      value = c.value();
    } else {
      d.error(
          "No value for required variable",
          "The input variable \""
              + v.name()
              + "\" (declared at "
              + where
              + ") is not set and has no default value. Give it a value with -var '"
              + v.name()
              + "=...', a variable file, or add a default.",
          v.range());
      return Value.unknown().mark(v.sensitive());
    }
    if (given.isPresent()) {
      if (value.isNull() && !v.nullable()) {
        // Terraform: a null for a non-nullable variable takes the default, or is an error.
        if (v.defaultValue().isPresent()) {
          return resolveOne(v, Optional.empty(), context, d);
        }
        invalid(v, type, "the variable is not nullable (nullable = false), but null was given", d);
        return Value.unknown().mark(v.sensitive());
      }
      TypeConstraints.Conversion c = TypeConstraints.convert(value, type);
      if (!c.ok()) {
        // the message of a sensitive value's conversion names its kinds, never its text
        String why =
            v.sensitive()
                ? TypeConstraints.convert(markedDeep(value), type).error().orElse("invalid")
                : c.error().get();
        invalid(v, type, why, d);
        return Value.unknown().mark(v.sensitive());
      }
      value = c.value();
    } else if (value.isNull() && !v.nullable()) {
      invalid(
          v, type, "the variable is not nullable (nullable = false), but its default is null", d);
      return Value.unknown().mark(v.sensitive());
    }
    value = value.mark(v.sensitive());
    validate(v, value, context, d);
    return value;
  }

  /** {@code value} with itself and everything in it marked sensitive. */
  private static Value markedDeep(Value value) {
    return switch (value) {
      case Value.ListValue l ->
          new Value.ListValue(
              l.elements().stream().map(VariableValues::markedDeep).toList(), true, l.fromState());
      case Value.ObjectValue o -> {
        Map<String, Value> attributes = new LinkedHashMap<>();
        o.attributes().forEach((k, e) -> attributes.put(k, markedDeep(e)));
        yield new Value.ObjectValue(attributes, true, o.fromState());
      }
      default -> value.mark(true);
    };
  }

  private static void invalid(VariableDecl v, Type type, String why, Diagnostics d) {
    d.error(
        "Invalid value for variable",
        "The given value is not suitable for var."
            + v.name()
            + " declared at "
            + v.range()
            + ": "
            + why
            + ". The expected type is "
            + type
            + ".",
        v.range());
  }

  private static void validate(
      VariableDecl v, Value value, SimpleEvalContext context, Diagnostics d) {
    for (BlockDecl b : v.validations()) {
      Optional<AttributeDecl> cond = b.attribute("condition");
      Optional<AttributeDecl> msg = b.attribute("error_message");
      if (cond.isEmpty() || msg.isEmpty()) {
        continue; // reported by the loader
      }
      boolean refsOk = true;
      for (AttributeDecl a : new AttributeDecl[] {cond.get(), msg.get()}) {
        for (Traversal t : a.expr().traversals()) {
          if (!t.variableName().equals(Optional.of(v.name())) && !t.root().equals("path")) {
            d.error(
                "Invalid reference in variable validation",
                "The condition and error message of a validation block for var."
                    + v.name()
                    + " may refer only to var."
                    + v.name()
                    + " and path.*, not to "
                    + t
                    + ".",
                t.range());
            refsOk = false;
          }
        }
      }
      if (!refsOk) {
        continue;
      }
      SimpleEvalContext ctx = context.withVariable(v.name(), value);
      EvalResult r = new Evaluator().evaluate(cond.get().expr(), ctx);
      if (r.hasErrors()) {
        d.addAll(r.diagnostics());
        continue;
      }
      Value cv = r.value();
      if (!cv.isKnown()) {
        continue; // checked again when the value is known
      }
      if (cv.isNull() || !(cv.unmark() instanceof Value.BoolValue bv)) {
        d.error(
            "Invalid validation result",
            "The condition for var."
                + v.name()
                + " must be true or false, but it is "
                + cv.typeName()
                + ".",
            cond.get().expr().range());
        continue;
      }
      if (!bv.value()) {
        EvalResult m = new Evaluator().evaluate(msg.get().expr(), ctx);
        String text =
            m.hasErrors() || !m.value().isKnown()
                ? "(the error message could not be evaluated)"
                : m.value().isSensitive() || m.value().containsSensitive()
                    ? "(the error message refers to a sensitive value)"
                    : m.value().asString();
        d.error(
            "Invalid value for variable",
            text
                + "\n\nThis was checked by the validation rule at "
                + cond.get().expr().range()
                + " for var."
                + v.name()
                + ".",
            cond.get().expr().range());
      }
    }
  }
}
