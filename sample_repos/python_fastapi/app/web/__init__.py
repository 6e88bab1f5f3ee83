"""Server-rendered admin pages (Flask blueprint kept from the first version)."""
