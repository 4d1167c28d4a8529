from .spec import main

main()
