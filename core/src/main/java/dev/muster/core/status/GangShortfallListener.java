package dev.muster.core.status;

/**
 * Told when a scheduled gang falls below its minimum or is whole again ({@link GangShortfall}).
 * {@link StatusFolding} calls it while holding its lock, in the order the crossings happen: implementations must be
 * quick, must not block, and must not call back into the fold.
 */
@FunctionalInterface
public interface GangShortfallListener {
    void crossed(GangShortfall change);

    GangShortfallListener NONE = change -> {};
}
