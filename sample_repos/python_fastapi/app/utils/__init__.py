"""Small helpers without dependencies on the rest of the application."""
