package dev.stagecraft.language.config;

import dev.stagecraft.language.diag.SourceRange;
import dev.stagecraft.language.syntax.Expression;

/** {@code name = expr} as declared; {@code range} covers the whole argument. */
public record AttributeDecl(String name, Expression expr, SourceRange range) {}
