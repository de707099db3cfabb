package dev.muster.core.stream;

/** An event with its place in the stream: sequences are strictly increasing, starting at 1. */
public record SequencedEvent(long sequence, long epochMillis, AllocationEvent event) {}
