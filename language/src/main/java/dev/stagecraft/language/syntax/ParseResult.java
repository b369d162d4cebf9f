package dev.stagecraft.language.syntax;

import dev.stagecraft.language.diag.Diagnostics;

/** The result of parsing a file: a body (possibly partial when there are errors) and problems. */
public record ParseResult(Body body, Diagnostics diagnostics) {}
