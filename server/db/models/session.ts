import {
  DataTypes,
  Model,
  type CreationOptional,
  type InferAttributes,
  type InferCreationAttributes,
  type Sequelize,
} from 'sequelize';

/** A console login. The id is the SHA-256 of the cookie value, so a leaked database holds no live cookie. */
export class Session extends Model<InferAttributes<Session>, InferCreationAttributes<Session>> {
  declare id: string;
  declare userId: number;
  declare expiresAt: Date;
  /** Where the session was opened, for the person's list of sessions. */
  declare ip: CreationOptional<string | null>;
  declare userAgent: CreationOptional<string | null>;
  declare lastSeenAt: CreationOptional<Date | null>;
  /** How it was opened: `oidc` (OpenID Connect); null for a password (and the older sessions). */
  declare signInMethod: CreationOptional<string | null>;
  /** The provider's ID token (OpenID Connect): sign-out's `id_token_hint`. */
  declare idToken: CreationOptional<string | null>;
  declare createdAt: CreationOptional<Date>;
  declare updatedAt: CreationOptional<Date>;

  static initModel(sequelize: Sequelize): void {
    Session.init(
      {
        id: { type: DataTypes.STRING(64), primaryKey: true },
        userId: { type: DataTypes.INTEGER, allowNull: false },
        expiresAt: { type: DataTypes.DATE, allowNull: false },
        ip: { type: DataTypes.STRING(64), allowNull: true, defaultValue: null },
        userAgent: { type: DataTypes.STRING(300), allowNull: true, defaultValue: null },
        lastSeenAt: { type: DataTypes.DATE, allowNull: true, defaultValue: null },
        signInMethod: { type: DataTypes.STRING(16), allowNull: true, defaultValue: null },
        idToken: { type: DataTypes.TEXT, allowNull: true, defaultValue: null },
        createdAt: DataTypes.DATE,
        updatedAt: DataTypes.DATE,
      },
      { sequelize, tableName: 'sessions' },
    );
  }
}
