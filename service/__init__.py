"""Card Referee: a rules-adjudication service for card games."""
