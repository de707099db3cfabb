package dev.muster.core.provision;

/**
 * What an autoscaler said of a request: which of cluster-autoscaler's conditions ({@code Accepted},
 * {@code Provisioned}, {@code Failed}, {@code BookingExpired}, {@code CapacityRevoked}) are {@code True}, and the
 * reason and message of the one that decides ({@code Failed}, then {@code CapacityRevoked}, then {@code BookingExpired}).
 */
public record RequestStatus(boolean accepted, boolean provisioned, boolean failed, boolean bookingExpired, boolean capacityRevoked,
                            String reason, String message) {
    /** A request nothing has been said of yet. */
    public static final RequestStatus NEW = new RequestStatus(false, false, false, false, false, "", "");

    public RequestStatus {
        reason = reason == null ? "" : reason;
        message = message == null ? "" : message;
    }

    /** The request lost its room or never got it: it is of no more use to a gang that does not run yet. */
    public boolean lost() {
        return failed || bookingExpired || capacityRevoked;
    }

    /** The condition that made it {@link #lost()}: {@code Failed}, {@code CapacityRevoked} or {@code BookingExpired}. */
    public String lostBy() {
        return failed ? "Failed" : capacityRevoked ? "CapacityRevoked" : bookingExpired ? "BookingExpired" : "";
    }

    /** {@code reason: message}, or whichever is given. */
    public String detail() {
        if (reason.isEmpty() || message.isEmpty()) {
            return reason + message;
        }
        return reason + ": " + message;
    }
}
