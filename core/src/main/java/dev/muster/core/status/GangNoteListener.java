package dev.muster.core.status;

/**
 * Told each time the fold asks for an Event about a PodGroup ({@link GangNote}): a preemption's victims and its
 * preemptor. {@link StatusFolding} calls it while holding its lock, in the order the facts arrive: implementations
 * must be quick, must not block, and must not call back into the fold.
 */
@FunctionalInterface
public interface GangNoteListener {
    void noted(GangNote note);

    GangNoteListener NONE = note -> {};
}
