package dev.stagecraft.language.config;

import dev.stagecraft.language.diag.SourceRange;
import dev.stagecraft.language.syntax.Expression;

/** One entry of a {@code locals { }} block. */
public record LocalDecl(String name, Expression expr, SourceRange range) {}
