package dev.stagecraft.language.syntax;

import dev.stagecraft.language.diag.SourceRange;
import java.util.List;

/** A piece of a string template. Strip markers ({@code ~}) are already applied to literals. */
public sealed interface TemplatePart
    permits TemplatePart.Literal, TemplatePart.Interpolation, TemplatePart.If, TemplatePart.For {
  SourceRange range();

  /** Literal text with escapes already decoded. */
  record Literal(String text, SourceRange range) implements TemplatePart {}

  /** {@code ${expr}}. */
  record Interpolation(Expression expr, SourceRange range) implements TemplatePart {}

  /** {@code %{ if cond }...%{ else }...%{ endif }}. */
  record If(
      Expression condition,
      List<TemplatePart> thenParts,
      List<TemplatePart> elseParts,
      SourceRange range)
      implements TemplatePart {
    public If {
      thenParts = List.copyOf(thenParts);
      elseParts = List.copyOf(elseParts);
    }
  }

  /** {@code %{ for k, v in coll }...%{ endfor }}; keyVar may be null. */
  record For(
      String keyVar,
      String valueVar,
      Expression collection,
      List<TemplatePart> body,
      SourceRange range)
      implements TemplatePart {
    public For {
      body = List.copyOf(body);
    }
  }
}
