package dev.stagecraft.servicekit.http;

import java.util.regex.Pattern;

/** Validation of tenant and workspace names taken from paths and bodies. */
public final class Names {
  private static final Pattern NAME = Pattern.compile("[A-Za-z0-9][A-Za-z0-9_.-]{0,127}");

  private Names() {}

  /**
   * @return {@code value}, when it is a valid name
   * @throws Problem 400 naming {@code what} and the rule, when it is not
   */
  public static String check(String what, String value) {
    if (value == null || !NAME.matcher(value).matches()) {
      throw Problem.badRequest(
          what
              + " name '"
              + value
              + "' is invalid: use 1-128 letters, digits, '_', '.' or '-', starting with a letter"
              + " or digit");
    }
    return value;
  }
}
