/** The event contract shared by every Stagecraft service. */
package dev.stagecraft.schemas;
