package io.sluice.schema;

/** Schema text that its format's parser rejects; the message is the parser's, shown to the client as 42201. */
public final class InvalidSchemaException extends Exception {
  public InvalidSchemaException(String message) {
    super(message);
  }
}
