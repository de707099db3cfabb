package dev.muster.core.model;

/**
 * A gang's lifecycle as the extender sees it.
 *
 * <pre>
 *   WAITING ──plan fits, queue admits──▶ ADMITTED ─▶ RESERVED ──minMember bound or waiting──▶ BOUND
 *      ▲  │                                             │
 *      │  └─ plan fails / queue refuses ─▶ UNSCHEDULABLE │ deadline passes, or slots lost and cannot move
 *      │                                                 ▼
 *      └──────────── backoff elapses ◀── BACKED_OFF ◀── EXPIRED
 * </pre>
 * DELETED is reported once when the PodGroup disappears.
 */
public enum GangState {
    WAITING, ADMITTED, RESERVED, BOUND, UNSCHEDULABLE, EXPIRED, BACKED_OFF, DELETED
}
