"""One module per game. Each defines ``GAME``, an instance of its ``Game`` subclass."""
