"""The console: web pages for the person behind an agent, served by the API's own app under /console (routes.py)."""
