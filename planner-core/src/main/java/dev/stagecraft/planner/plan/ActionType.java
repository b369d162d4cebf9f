package dev.stagecraft.planner.plan;

import java.util.List;

/** The closed set of things a plan can do to one resource instance (design §4). */
public enum ActionType {
  NO_OP(List.of("no-op"), ' '),
  CREATE(List.of("create"), '+'),
  UPDATE(List.of("update"), '~'),
  DELETE_THEN_CREATE(List.of("delete", "create"), 'R'),
  CREATE_THEN_DELETE(List.of("create", "delete"), 'r'),
  DELETE(List.of("delete"), '-'),
  FORGET(List.of("forget"), '.'),
  /**
   * Replace with {@code lifecycle { destroy = false }}: forget the old object, create a new one.
   */
  FORGET_THEN_CREATE(List.of("forget", "create"), 'F');

  private final List<String> terraformActions;
  private final char code;

  ActionType(List<String> terraformActions, char code) {
    this.terraformActions = terraformActions;
    this.code = code;
  }

  /** Terraform's JSON plan representation of the action ({@code change.actions}). */
  public List<String> terraformActions() {
    return terraformActions;
  }

  /** The symbol in the human rendering. */
  public String symbol() {
    return switch (this) {
      case NO_OP -> " ";
      case CREATE -> "+";
      case UPDATE -> "~";
      case DELETE_THEN_CREATE -> "-/+";
      case CREATE_THEN_DELETE -> "+/-";
      case DELETE -> "-";
      case FORGET -> ".";
      case FORGET_THEN_CREATE -> "./+";
    };
  }

  /** Any of the three replace orders (the old object leaves state, a new one is created). */
  public boolean isReplace() {
    return this == DELETE_THEN_CREATE || this == CREATE_THEN_DELETE || this == FORGET_THEN_CREATE;
  }

  /** True when the old object is forgotten (left in place, removed from state). */
  public boolean forgets() {
    return this == FORGET || this == FORGET_THEN_CREATE;
  }

  /** True when the new object is created (create and both replace orders). */
  public boolean creates() {
    return this == CREATE || isReplace();
  }

  /** True when the old object is destroyed (delete and the two destroying replace orders). */
  public boolean deletes() {
    return this == DELETE || this == DELETE_THEN_CREATE || this == CREATE_THEN_DELETE;
  }

  /** The name an executor receives in {@code ActionDispatched.action}. */
  public String wireName() {
    return switch (this) {
      case NO_OP -> "no-op";
      case CREATE -> "create";
      case UPDATE -> "update";
      case DELETE_THEN_CREATE, CREATE_THEN_DELETE, FORGET_THEN_CREATE -> "replace";
      case DELETE -> "delete";
      case FORGET -> "forget";
    };
  }

  char code() {
    return code;
  }
}
