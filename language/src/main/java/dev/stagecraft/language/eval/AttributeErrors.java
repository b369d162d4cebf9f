package dev.stagecraft.language.eval;

import dev.stagecraft.language.diag.Diagnostic;
import dev.stagecraft.language.diag.SourceRange;
import dev.stagecraft.language.syntax.Traversal;

/**
 * The error of an attribute access ({@code x.name}) that finds nothing: an undeclared variable,
 * local value or resource when the access is the first step of a reference, else a missing
 * attribute or a value that has no attributes. The keys of a sensitive object are not listed.
 */
final class AttributeErrors {
  private AttributeErrors() {}

  /**
   * @param firstOf the reference when {@code name} is its first step (after the root), else null
   */
  static Diagnostic notFound(Value v, String name, SourceRange range, Traversal firstOf) {
    return switch (v) {
      case Value.ObjectValue o -> missing(o, name, range, firstOf);
      case Value.NullValue n ->
          Diagnostic.error(
              "Attempt to get attribute from null value",
              "This value is null, so it does not have any attributes (accessing \""
                  + name
                  + "\").",
              range);
      case Value.ListValue l ->
          Diagnostic.error(
              "Unsupported attribute",
              "Can't access attributes on a list of objects. Did you mean to access attribute \""
                  + name
                  + "\" for a specific element of the list (x[0]."
                  + name
                  + "), or across all elements of the list (x[*]."
                  + name
                  + ")?",
              range);
      default ->
          Diagnostic.error(
              "Unsupported attribute",
              "Can't access attributes on a primitive-typed value (" + v.typeName() + ").",
              range);
    };
  }

  private static Diagnostic missing(
      Value.ObjectValue o, String name, SourceRange range, Traversal firstOf) {
    String root = firstOf == null ? null : firstOf.root();
    if ("var".equals(root)) {
      return Diagnostic.error(
          "Reference to undeclared input variable",
          "An input variable with the name \""
              + name
              + "\" has not been declared. Declare it with a variable \""
              + name
              + "\" {} block.",
          firstOf.range());
    }
    if ("local".equals(root)) {
      return Diagnostic.error(
          "Reference to undeclared local value",
          "A local value with the name \""
              + name
              + "\" has not been declared. Declare it in a locals { } block.",
          firstOf.range());
    }
    if (firstOf != null && firstOf.isResourceReference()) {
      return Diagnostic.error(
          "Reference to undeclared resource",
          "A managed resource \""
              + root
              + "\" \""
              + name
              + "\" has not been declared. Declare it with resource \""
              + root
              + "\" \""
              + name
              + "\" { ... } or fix the reference.",
          firstOf.range());
    }
    return Diagnostic.error(
        "Unsupported attribute",
        "This object does not have an attribute named \""
            + name
            + "\"."
            + (o.attributes().isEmpty() || o.isSensitive()
                ? ""
                : " Available: " + o.attributes().keySet() + "."),
        range);
  }
}
