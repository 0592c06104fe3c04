from llkgen.cli import main

main()
