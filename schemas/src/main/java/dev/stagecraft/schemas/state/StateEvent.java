package dev.stagecraft.schemas.state;

/** What travels on {@code stagecraft.state-events}: the state service's records of outcomes. */
public sealed interface StateEvent permits StateRecorded {}
