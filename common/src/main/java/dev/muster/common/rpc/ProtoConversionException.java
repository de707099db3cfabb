package dev.muster.common.rpc;

/**
 * A protobuf message that cannot stand for a core value (a missing uid, an unspecified enum, an empty
 * resource name...). The message names the offending field; servers answer it with INVALID_ARGUMENT,
 * stream clients treat it as a protocol error.
 */
public final class ProtoConversionException extends IllegalArgumentException {
    public ProtoConversionException(String message) {
        super(message);
    }
}
