package dev.stagecraft.language.types;

import dev.stagecraft.language.eval.Value;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.stream.Collectors;

/**
 * A Terraform type constraint ({@code string}, {@code list(number)}, {@code object({...})}, {@code
 * any}, ...), as written in a variable's {@code type} argument. Parse one with {@link
 * TypeConstraints#parse}; convert values with {@link TypeConstraints#convert}. {@link #toString()}
 * prints the constraint in Terraform's syntax.
 */
public sealed interface Type
    permits Type.Primitive,
        Type.Any,
        Type.ListOf,
        Type.SetOf,
        Type.MapOf,
        Type.ObjectOf,
        Type.TupleOf {

  Type STRING = new Primitive("string");
  Type NUMBER = new Primitive("number");
  Type BOOL = new Primitive("bool");
  Type ANY = new Any();

  /** {@code string}, {@code number} or {@code bool}. */
  record Primitive(String name) implements Type {
    @Override
    public String toString() {
      return name;
    }
  }

  /** {@code any}: the value is kept as given. */
  record Any() implements Type {
    @Override
    public String toString() {
      return "any";
    }
  }

  record ListOf(Type element) implements Type {
    @Override
    public String toString() {
      return "list(" + element + ")";
    }
  }

  /** A set: values are deduplicated (and strings/numbers sorted, as Terraform orders them). */
  record SetOf(Type element) implements Type {
    @Override
    public String toString() {
      return "set(" + element + ")";
    }
  }

  record MapOf(Type element) implements Type {
    @Override
    public String toString() {
      return "map(" + element + ")";
    }
  }

  /**
   * One attribute of an object type; {@code optional} attributes may be absent (then {@code
   * defaultValue}, or null).
   */
  record Attribute(Type type, boolean optional, Optional<Value> defaultValue) {
    @Override
    public String toString() {
      if (!optional) {
        return type.toString();
      }
      return "optional(" + type + defaultValue.map(v -> ", " + v.render()).orElse("") + ")";
    }
  }

  record ObjectOf(Map<String, Attribute> attributes) implements Type {
    public ObjectOf {
      attributes = Collections.unmodifiableMap(new LinkedHashMap<>(attributes));
    }

    @Override
    public String toString() {
      return attributes.entrySet().stream()
          .map(e -> e.getKey() + " = " + e.getValue())
          .collect(Collectors.joining(", ", "object({", "})"));
    }
  }

  record TupleOf(List<Type> elements) implements Type {
    public TupleOf {
      elements = List.copyOf(elements);
    }

    @Override
    public String toString() {
      return elements.stream()
          .map(Type::toString)
          .collect(Collectors.joining(", ", "tuple([", "])"));
    }
  }
}
