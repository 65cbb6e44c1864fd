"""The 13-step list-watch flow: traces and steps recorded by the parts that perform them."""
