package dev.stagecraft.language.syntax;

import dev.stagecraft.language.diag.Diagnostics;

/** The result of parsing a standalone expression; {@code expression} is null on fatal errors. */
public record ExpressionResult(Expression expression, Diagnostics diagnostics) {}
