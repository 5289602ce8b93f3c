"""Qt item models over the engine's data and the document's configuration."""
